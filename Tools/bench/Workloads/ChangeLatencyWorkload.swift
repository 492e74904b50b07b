import ChildProcesses
import Concord
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Workload 6: cross-process change latency. A child (the bench binary in the role `latency-writer`)
/// sets `lat-0`, `lat-1`, … one durable commit each, a millisecond apart, and stamps
/// `CLOCK_MONOTONIC` (one clock for the whole machine) as each `set` returns; this process observes
/// the store with `store.changes().start` and stamps each decoded change as its callback starts. The child
/// prints its stamps when done, so stamping costs the writer nothing while it runs.
/// The baseline is Linux's own floor: the same two processes with nothing but a `pwrite` to a file
/// and an inotify watch (poll, then `pread` of the counter the writer put there). Its writer stamps
/// just before the `pwrite`, because the watcher, on the other core, often wakes before `pwrite`
/// has returned; so the floor is the time from the write call to the watcher's wake-up.
/// UserDefaults and SQLite have no cross-process change notification, so they have no row here.
enum ChangeLatencyWorkload: Workload {
    static let name = "change-latency"
    static let title = "6 cross-process change latency"
    static let summary = "from a set returning in another process to store.changes()'s callback here: p50 and p99"

    static let concordName = SubjectKind.concord.displayName + " (store.changes)"
    static let inotifyName = "inotify wake-up (Linux floor)"
    /// Pause between the writer's changes, so each is measured on its own rather than queued behind the last.
    static let paceMicroseconds: UInt32 = 1_000

    static func changes(_ context: BenchContext) -> Int { context.pick(quick: 300, full: 1_000) }
    static func scenario(_ context: BenchContext) -> String { "\(grouped(changes(context))) changes" }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let count = changes(context)
        let runs = context.pick(quick: 1, full: 3)
        let s = scenario(context)
        context.progress("\(name): \(runs) runs of \(grouped(count)) changes")
        var concord = LatencySamples()
        var inotify = LatencySamples()
        for run in 0..<runs {
            for side in run % 2 == 0 ? [true, false] : [false, true] {
                let directory = try context.scratch.makeDirectory("latency")
                defer { context.scratch.remove(directory) }
                if side {
                    concord.add(try measureConcord(directory: directory, count: count))
                } else {
                    inotify.add(try measureInotify(directory: directory, count: count))
                }
            }
        }
        return concord.figures(workload: name, scenario: s, subject: concordName, count: count)
            + inotify.figures(workload: name, scenario: s, subject: inotifyName, count: count)
    }

    // MARK: - Concord

    private static func measureConcord(directory: String, count: Int) throws -> [Double?] {
        let store = try Store(path: directory)
        let received = ArrivalLog(count: count)
        let token = try store.changes().start { change in
            let now = BenchClock.now()
            guard change.key.hasPrefix("lat-"), case .int(let i)? = change.value else { return }
            received.record(i, at: now)
        }
        defer { token.cancel() }
        let stamps = try runWriter(role: "latency-writer", directory: directory, count: count)
        return received.latencies(since: stamps)
    }

    // MARK: - inotify

    private static func measureInotify(directory: String, count: Int) throws -> [Double?] {
        let path = directory + "/signal"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard watch >= 0, inotify_add_watch(watch, path, UInt32(IN_MODIFY)) >= 0 else {
            throw BenchError("inotify is not available for \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(watch) }
        var stop: [Int32] = [-1, -1]
        guard pipe(&stop) == 0 else { throw BenchError("cannot create a pipe: \(String(cString: strerror(errno)))") }
        defer { close(stop[0]) }
        let received = ArrivalLog(count: count)
        let stopRead = stop[0]
        let finished = DispatchSemaphore(value: 0)
        let watcher = Thread {
            defer { finished.signal() }
            var polls = [pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0), pollfd(fd: watch, events: Int16(POLLIN), revents: 0)]
            var events = [UInt8](repeating: 0, count: 4096)
            while true {
                polls[0].revents = 0
                polls[1].revents = 0
                if poll(&polls, 2, -1) < 0 && errno == EINTR { continue }
                if polls[0].revents != 0 { return }
                while read(watch, &events, events.count) > 0 {}
                let now = BenchClock.now()
                var value: UInt64 = 0
                guard pread(fd, &value, 8, 0) == 8 else { continue }
                received.record(Int(value), at: now)
            }
        }
        watcher.start()
        defer {
            var byte: UInt8 = 1
            _ = write(stop[1], &byte, 1)
            close(stop[1])
            finished.wait()
        }
        let stamps = try runWriter(role: "inotify-writer", directory: path, count: count)
        return received.latencies(since: stamps)
    }

    // MARK: - The writer process

    /// Starts the writer child, lets it go, and returns the stamp it took after each change.
    private static func runWriter(role: String, directory: String, count: Int) throws -> [UInt64] {
        let child = try ChildProcess(role: role, [directory, String(count)])
        _ = try child.expect("ready")
        child.send("go")
        var stamps = [UInt64](repeating: 0, count: count)
        while let line = child.readLine(), line != "done" {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "stamp", let i = Int(parts[1]), let t = UInt64(parts[2]), i >= 0, i < count else {
                throw BenchError("\(role) printed '\(line)'")
            }
            stamps[i] = t
        }
        try child.finish()
        usleep(200_000) // let the last changes arrive
        return stamps
    }

    static func runChild(role: String, arguments: [String]) throws -> Int32? {
        guard role == "latency-writer" || role == "inotify-writer" else { return nil }
        let usage = "\(role) PATH COUNT"
        let path = try ChildRoles.argument(arguments, 0, usage)
        let count = try ChildRoles.integer(arguments, 1, usage)
        var stamps = [UInt64](repeating: 0, count: count)
        if role == "latency-writer" {
            let suite = try Store(path: path).suite("bench")
            let keys = (0..<count).map { "lat-\($0)" }
            try ParentLink.waitForGo()
            for i in 0..<count {
                try suite.set(i, forKey: keys[i])
                stamps[i] = BenchClock.now()
                usleep(paceMicroseconds)
            }
        } else {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw BenchError("cannot open \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            try ParentLink.waitForGo()
            for i in 0..<count {
                var value = UInt64(i)
                stamps[i] = BenchClock.now()
                guard pwrite(fd, &value, 8, 0) == 8 else { throw BenchError("pwrite to \(path) failed: \(String(cString: strerror(errno)))") }
                usleep(paceMicroseconds)
            }
        }
        ParentLink.say(stamps.enumerated().map { "stamp \($0.offset) \($0.element)" }.joined(separator: "\n"))
        ParentLink.say("done")
        return 0
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        let s = scenario(context)
        return [
            .bound(
                "change latency p50 under 200 µs", value: figures.find(name, s, concordName, metric: "p50")?.summary?.median,
                limit: 200, strictly: true, mark: .at(figures.find(name, s, concordName, metric: "p50"), 200)
            ) { String(format: "%.0f µs", $0) },
            .bound(
                "change latency p99 under 2 ms", value: figures.find(name, s, concordName, metric: "p99")?.summary?.median,
                limit: 2_000, strictly: true, mark: .at(figures.find(name, s, concordName, metric: "p99"), 2_000)
            ) { String(format: "%.0f µs", $0) }
        ]
    }
}

/// When each change arrived in the observing process, by the writer's index.
final class ArrivalLog: Sendable {
    private let arrivals: Mutex<[UInt64]>

    init(count: Int) { arrivals = Mutex([UInt64](repeating: 0, count: count)) }

    /// Records the first arrival of change `i`.
    func record(_ i: Int, at time: UInt64) {
        arrivals.withLock { a in if i >= 0 && i < a.count && a[i] == 0 { a[i] = time } }
    }

    /// Latency of each change in microseconds (`nil`: never arrived). Negative when the observer
    /// stamped before the writer's `set` returned, which two cores allow; kept as measured.
    func latencies(since stamps: [UInt64]) -> [Double?] {
        arrivals.withLock { a in
            zip(a, stamps).map { arrived, sent in arrived == 0 ? nil : (Double(Int64(bitPattern: arrived &- sent))) / 1_000 }
        }
    }
}

/// p50, p99 and missed changes of each run.
struct LatencySamples {
    var p50: [Double] = []
    var p99: [Double] = []
    var missed: [Double] = []

    mutating func add(_ latencies: [Double?]) {
        let arrived = latencies.compactMap { $0 }
        missed.append(Double(latencies.count - arrived.count))
        guard !arrived.isEmpty else { return }
        let p = Percentiles(arrived)
        p50.append(p.value(at: 50))
        p99.append(p.value(at: 99))
    }

    func figures(workload: String, scenario: String, subject: String, count: Int) -> [Figure] {
        [
            Figure(workload: workload, scenario: scenario, subject: subject, metric: "p50", unit: .microseconds, samples: p50),
            Figure(workload: workload, scenario: scenario, subject: subject, metric: "p99", unit: .microseconds, samples: p99),
            Figure(
                workload: workload, scenario: scenario, subject: subject, metric: "missed changes", unit: .count,
                samples: missed, note: "of \(grouped(count)) per run")
        ]
    }
}
