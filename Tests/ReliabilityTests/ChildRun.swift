import Foundation
import TestSupport

/// How a child process ended, with its output and how long it ran.
struct ChildOutcome: CustomStringConvertible {
    let status: Int32
    /// True when the child was ended by a signal (a crash, or the kill after a timeout).
    let signaled: Bool
    let timedOut: Bool
    let stdout: String
    let stderr: String
    let milliseconds: Double

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    /// Ended on its own with exit status `code`.
    func exited(_ code: Int32) -> Bool { !signaled && !timedOut && status == code }

    var description: String {
        let how = timedOut ? "timed out and was killed" : signaled ? "killed by signal \(status)" : "exited \(status)"
        return "\(how) after \(Int(milliseconds)) ms; stdout: \(stdout.prefix(600)); stderr: \(stderr.prefix(600))"
    }
}

/// Runs children to completion, always with a deadline, so a hang fails a test instead of stalling the suite.
enum ChildRun {
    /// Runs `executable` (a built product name or a path) with `arguments`.
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 60) throws -> ChildOutcome {
        let start = ContinuousClock.now
        let child = try ChildProcess(executable, arguments)
        return finish(child, start: start, timeout: timeout)
    }

    /// Runs `sync-tool` with `arguments`.
    static func syncTool(_ arguments: [String], timeout: Double = 60) throws -> ChildOutcome {
        try run("sync-tool", arguments, timeout: timeout)
    }

    /// Runs `concord-test-helper ROLE ARGS…`.
    static func helper(_ arguments: [String], timeout: Double = 120) throws -> ChildOutcome {
        try run("concord-test-helper", arguments, timeout: timeout)
    }

    /// Runs a /bin/sh script (for arguments Foundation cannot pass, such as bytes that are not UTF-8).
    /// The script sees the built products' directory as $BIN.
    static func shell(_ script: String, timeout: Double = 60) throws -> ChildOutcome {
        let start = ContinuousClock.now
        let child = try ChildProcess("/bin/sh", ["-c", script], environment: ["BIN": Binaries.directory])
        return finish(child, start: start, timeout: timeout)
    }

    /// Waits for `child` (killing it after `timeout` seconds) and describes how it ended.
    static func finish(_ child: ChildProcess, start: ContinuousClock.Instant, timeout: Double) -> ChildOutcome {
        let deadline = Date().addingTimeInterval(timeout)
        while child.process.isRunning && Date() < deadline { usleep(2_000) }
        let timedOut = child.process.isRunning
        if timedOut { child.kill() }
        let result = child.wait(timeout: 5)
        return ChildOutcome(
            status: result.status, signaled: child.process.terminationReason == .uncaughtSignal,
            timedOut: timedOut, stdout: result.stdout, stderr: result.stderr,
            milliseconds: milliseconds(since: start))
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

/// Prints a figure a test measured, in one recognisable line (the suite's note quotes them).
func figure(_ test: String, _ text: String) {
    print("figure [\(test)]: \(text)")
}
