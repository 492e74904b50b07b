import ChildProcesses

/// Workload 5: two processes writing distinct keys at once, each key its own durable commit.
/// This process and a child (the bench binary in the role `concurrent-writer`) each write
/// `count` new keys under a prefix of their own into the same store; afterwards a third, fresh
/// process counts which keys are there. Throughput is both writers' keys over the wall time from
/// the common start to the last writer's end. A lost write is a key that was set without error
/// and is not there afterwards; UserDefaults on Linux loses them, and the table says how many.
enum ConcurrentWritersWorkload: Workload {
    static let name = "concurrent-writers"
    static let title = "5 two writer processes"
    static let summary = "two processes each setting distinct keys durably at once: throughput and lost writes"

    static let systems = SubjectKind.allCases

    static func sizes(_ context: BenchContext) -> [Int] { context.pick(quick: [1_000], full: [1_000, 100_000]) }

    static func scenario(_ size: Int) -> String { "into \(grouped(size)) keys" }

    static func skipReason(_ kind: SubjectKind, size: Int) -> String? {
        guard kind == .userDefaults, size > 1_000 else { return nil }
        return "every synchronize() rewrites the whole property list, so this many durable sets at this size take many minutes"
    }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let count = context.pick(quick: 50, full: 250)
        let runs = context.pick(quick: 2, full: 5)
        var figures: [Figure] = []
        for size in sizes(context) {
            context.progress("\(name): \(scenario(size)), \(runs) runs of 2 × \(count) writes")
            var throughput: [SubjectKind: [Double]] = [:]
            var lost: [SubjectKind: [Double]] = [:]
            var failed: [SubjectKind: Int] = [:]
            for run in 0..<runs {
                for kind in context.rotated(systems, run: run) where skipReason(kind, size: size) == nil {
                    let subject = try context.fixtures.subject(kind, size: size, progress: context.progress)
                    let directory = try context.fixtures.directory(kind, size: size, progress: context.progress)
                    let prefix = "w\(run)-"
                    let outcome = try race(subject, kind: kind, directory: directory, prefix: prefix, count: count)
                    throughput[kind, default: []].append(Double(2 * count) / (Double(outcome.elapsed) / 1e9))
                    let counter = try ChildProcess(role: "count-keys", [kind.rawValue, directory, prefix])
                    guard let present = Int(try counter.expect("count")) else { throw BenchError("count-keys printed no number") }
                    try counter.finish()
                    lost[kind, default: []].append(Double(2 * count - outcome.failed - present))
                    failed[kind, default: 0] += outcome.failed
                }
            }
            for kind in systems {
                let s = scenario(size)
                if let reason = skipReason(kind, size: size) {
                    figures.append(
                        .skipped(
                            workload: name, scenario: s, subject: kind.displayName, metric: "throughput",
                            unit: .operationsPerSecond, because: reason))
                    continue
                }
                let errors = failed[kind] ?? 0
                figures.append(
                    Figure(
                        workload: name, scenario: s, subject: kind.displayName, metric: "throughput",
                        unit: .operationsPerSecond, samples: throughput[kind] ?? []))
                figures.append(
                    Figure(
                        workload: name, scenario: s, subject: kind.displayName, metric: "lost writes",
                        unit: .count, samples: lost[kind] ?? [],
                        note: "of 2 × \(count) per run" + (errors > 0 ? "; \(errors) sets failed with an error (not counted as lost)" : "")))
            }
        }
        return figures
    }

    /// Runs this process's writes and the child's at once; returns the wall time and this side's failed sets
    /// plus the child's.
    private static func race(_ subject: any Subject, kind: SubjectKind, directory: String, prefix: String, count: Int) throws -> (elapsed: UInt64, failed: Int)
    {
        let child = try ChildProcess(role: "concurrent-writer", [kind.rawValue, directory, prefix + "b-", String(count)])
        _ = try child.expect("ready")
        child.send("go")
        let start = BenchClock.now()
        var failed = writeKeys(subject, prefix: prefix + "a-", count: count)
        guard let childFailed = Int(try child.expect("done")) else { throw BenchError("concurrent-writer printed no failure count") }
        let elapsed = BenchClock.now() - start
        try child.finish()
        failed += childFailed
        return (elapsed, failed)
    }

    /// Sets `count` keys durably, one commit each; returns how many sets threw.
    private static func writeKeys(_ subject: any Subject, prefix: String, count: Int) -> Int {
        var failed = 0
        for i in 0..<count {
            do { try subject.setDurably(prefix + String(i), .int(i)) } catch { failed += 1 }
        }
        return failed
    }

    static func runChild(role: String, arguments: [String]) throws -> Int32? {
        switch role {
        case "concurrent-writer":
            let usage = "concurrent-writer SYSTEM DIR PREFIX COUNT"
            let kind = try ChildRoles.kind(arguments, 0, usage)
            let subject = try kind.open(directory: try ChildRoles.argument(arguments, 1, usage))
            let prefix = try ChildRoles.argument(arguments, 2, usage)
            let count = try ChildRoles.integer(arguments, 3, usage)
            try ParentLink.waitForGo()
            ParentLink.say("done \(writeKeys(subject, prefix: prefix, count: count))")
            return 0
        case "count-keys":
            let usage = "count-keys SYSTEM DIR PREFIX"
            let kind = try ChildRoles.kind(arguments, 0, usage)
            let subject = try kind.open(directory: try ChildRoles.argument(arguments, 1, usage))
            ParentLink.say("count \(try subject.countKeys(prefix: try ChildRoles.argument(arguments, 2, usage)))")
            return 0
        default:
            return nil
        }
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        sizes(context).map { size in
            let s = scenario(size)
            return .bound(
                "concurrent writers (\(s)): zero lost writes",
                value: figures.find(name, s, .concord, metric: "lost writes")?.summary?.max,
                limit: 0
            ) { "\(Int($0)) lost at most in a run" }
        }
    }
}
