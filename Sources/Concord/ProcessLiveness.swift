import Foundation

/// Which process holds a lease, and whether a process is still running: Linux's `/proc/PID/stat`
/// gives each process's state and its start time (clock ticks since boot), so a pid reused by a
/// later process is told apart from the holder.
enum ProcessLiveness {
    /// This process: its pid and start time.
    static let current: (pid: Int32, start: UInt64) = {
        let pid = ProcessInfo.processInfo.processIdentifier
        return (pid, stat(pid)?.start ?? 0)
    }()

    /// Whether the process `pid` that started at `start` is still running (a zombie is not).
    static func isAlive(pid: Int32, start: UInt64) -> Bool {
        guard let found = stat(pid) else { return false }
        return found.state != "Z" && found.state != "X" && found.start == start
    }

    /// The state letter and start time of `pid`, from `/proc/PID/stat` (nil when there is no such process).
    private static func stat(_ pid: Int32) -> (state: Character, start: UInt64)? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let text = String(data: data, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm) ": state is field 3, starttime field 22.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let start = UInt64(fields[19]) else { return nil }
        return (state, start)
    }
}
