import ChildProcesses
import Concord
import Foundation

/// Workload 7: a `@Stored` read when nothing changed, against a plain stored property and a raw typed
/// `suite.get` (which opens a read transaction and decodes every time). Then freshness: a child process
/// (the bench binary in the role `stored-writer`) sets the key and exits, and the very next `@Stored`
/// read here must return what it wrote — the cache is keyed on the commit stamp, so it looks again.
enum StoredReadWorkload: Workload {
    static let name = "stored-read"
    static let title = "7 @Stored read when unchanged"
    static let summary = "an unchanged @Stored read vs a plain property and suite.get; reads right after another process's write"

    static let plainName = "plain stored property"
    static let storedName = SubjectKind.concord.displayName + " @Stored"
    static let getName = SubjectKind.concord.displayName + " suite.get"
    static let scenario = "String value"
    static let freshnessScenario = "read after another process's set"

    /// What the wrapper reads, as a user would declare it.
    struct Profile {
        @Stored var name: String
        init(suite: Suite) { _name = Stored(wrappedValue: "Guest", "name", in: suite) }
    }

    final class PlainProfile { var name = "value-0" }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let directory = try context.scratch.makeDirectory("stored")
        defer { context.scratch.remove(directory) }
        let suite = try Store(path: directory).suite("bench")
        try suite.set("value-0", forKey: "name")
        let profile = Profile(suite: suite)
        let plain = PlainProfile()
        let reads = context.pick(quick: 1_000_000, full: 5_000_000)
        let gets = context.pick(quick: 20_000, full: 100_000)
        context.progress("\(name): \(context.runs) runs of \(grouped(reads)) reads")
        var plainSamples: [Double] = []
        var storedSamples: [Double] = []
        var getSamples: [Double] = []
        for run in 0..<context.runs {
            for which in [0, 1, 2].rotated(by: run) {
                switch which {
                case 0: plainSamples.append(perRead(reads) { readPlain(plain) })
                case 1: storedSamples.append(perRead(reads) { readStored(profile) })
                default: getSamples.append(try perReadThrowing(gets) { try readGet(suite) })
                }
            }
        }
        guard profile.name == "value-0" else { throw BenchError("@Stored read \(profile.name), expected value-0") }

        let writes = context.pick(quick: 20, full: 100)
        context.progress("\(name): \(writes) sets by another process, each read back at once")
        var stale = 0
        for i in 1...writes {
            let child = try ChildProcess(role: "stored-writer", [directory, "value-\(i)"])
            try child.finish()
            if profile.name != "value-\(i)" { stale += 1 }
        }
        return [
            Figure(workload: name, scenario: scenario, subject: storedName, metric: "per read", unit: .nanosecondsPerOperation, samples: storedSamples),
            Figure(workload: name, scenario: scenario, subject: plainName, metric: "per read", unit: .nanosecondsPerOperation, samples: plainSamples),
            Figure(workload: name, scenario: scenario, subject: getName, metric: "per read", unit: .nanosecondsPerOperation, samples: getSamples),
            Figure(workload: name, scenario: freshnessScenario, subject: storedName, metric: "stale reads of \(writes)", unit: .count, samples: [Double(stale)])
        ]
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        let storedFigure = figures.find(name, scenario, storedName, metric: "per read")
        let stored = storedFigure?.summary?.median
        let writes = context.pick(quick: 20, full: 100)
        let stale = figures.find(name, freshnessScenario, storedName, metric: "stale reads of \(writes)")?.summary?.median
        return [
            .bound("an unchanged @Stored read costs under 100 ns", value: stored, limit: 100, strictly: true, mark: .at(storedFigure, 100)) {
                String(format: "%.1f ns", $0)
            },
            .bound("a @Stored read right after another process's write reflects it", value: stale, limit: 0) { "\(Int($0)) stale of \(writes)" }
        ]
    }

    static func runChild(role: String, arguments: [String]) throws -> Int32? {
        guard role == "stored-writer" else { return nil }
        let usage = "stored-writer DIR VALUE"
        let suite = try Store(path: try ChildRoles.argument(arguments, 0, usage)).suite("bench")
        try suite.set(try ChildRoles.argument(arguments, 1, usage), forKey: "name")
        return 0
    }

    // Each read goes through a function the optimizer may not inline or hoist out of the loop.
    @inline(never) static func readPlain(_ p: PlainProfile) -> Int { p.name.utf8.count }
    @inline(never) static func readStored(_ p: Profile) -> Int { p.name.utf8.count }
    @inline(never) static func readGet(_ s: Suite) throws -> Int { try s.get("name", as: String.self)?.utf8.count ?? 0 }

    private static func perRead(_ n: Int, _ read: () -> Int) -> Double {
        var sink = 0
        let elapsed = BenchClock.measure { for _ in 0..<n { sink &+= read() } }
        Sink.keep(sink)
        return Double(elapsed) / Double(n)
    }

    private static func perReadThrowing(_ n: Int, _ read: () throws -> Int) throws -> Double {
        var sink = 0
        let elapsed = try BenchClock.measure { for _ in 0..<n { sink &+= try read() } }
        Sink.keep(sink)
        return Double(elapsed) / Double(n)
    }
}

/// Keeps a computed result observable, so a measured loop is not optimized away.
enum Sink {
    nonisolated(unsafe) static var value = 0
    @inline(never) static func keep(_ v: Int) { value &+= v }
}

extension Array {
    func rotated(by n: Int) -> [Element] {
        guard !isEmpty else { return self }
        let k = n % count
        return Array(self[k...] + self[..<k])
    }
}
