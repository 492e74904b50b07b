import Concord
import Foundation

/// Workload 11: merge policies. What a write under each policy costs beside an lww set — durable
/// (each write fsynced) and without fsync (the CPU cost shows) — and what merging counter changes
/// costs beside merging lww changes: two replicas that each changed the same keys, one pulled into
/// the other (lww: the newer record replaces; counter: the states combine). Every figure is Concord's;
/// the ratio column says how an lww set (or merge) compares with each.
enum PolicyWorkload: Workload {
    static let name = "policies"
    static let title = "11 merge policies"
    static let summary = "counter increment, max proposal and set addition beside an lww set; merging counters beside merging lww values"

    static let lwwSet = SubjectKind.concord.displayName + " lww set"
    static let kinds: [(subject: String, prefix: String)] = [
        (lwwSet, "l."), ("counter increment", "c."), ("max proposal", "m."), ("set: add a member", "s.")
    ]
    static let lwwMerge = SubjectKind.concord.displayName + " lww merge"
    static let counterMerge = "counter merge"

    static func run(_ context: BenchContext) throws -> [Figure] {
        var figures: [Figure] = []
        for durable in [true, false] { figures += try writes(durable: durable, context) }
        figures += try merges(context)
        return figures
    }

    /// Single writes, one transaction each, into 1,000 keys per policy.
    private static func writes(durable: Bool, _ context: BenchContext) throws -> [Figure] {
        let keys = 1_000
        let scenario = "one write per commit, 1,000 keys" + (durable ? ", durable" : ", no fsync")
        let ops = durable ? context.pick(quick: 30, full: 300) : context.pick(quick: 500, full: 5_000)
        context.progress("\(name): \(scenario), \(context.runs) runs of \(ops) writes per policy")
        let suite = try prepared(durable: durable, keys: keys, context)
        var samples: [String: [Double]] = [:]
        var generation = keys
        for run in 0..<context.runs {
            let shift = run % kinds.count
            for (subject, prefix) in Array(kinds[shift...] + kinds[..<shift]) {
                let elapsed = try BenchClock.measure {
                    for k in 0..<ops {
                        generation += 1
                        let key = prefix + String(k % keys)
                        switch prefix {
                        case "l.": try suite.set(generation, forKey: key)
                        case "c.": try suite.increment(key)
                        case "m.": try suite.set(generation, forKey: key) // greater every time: always written
                        default: try suite.update(key, as: [String].self) { $0 = ($0 ?? []) + ["r\(run)-\(k / keys)"] }
                        }
                    }
                }
                samples[subject, default: []].append(Double(elapsed) / 1e3 / Double(ops))
            }
        }
        return kinds.map {
            Figure(
                workload: name, scenario: scenario, subject: $0.subject, metric: "per write",
                unit: .microseconds, samples: samples[$0.subject] ?? [])
        }
    }

    /// A store whose suite declares the policies (by prefix) and holds `keys` keys of each.
    private static func prepared(durable: Bool, keys: Int, _ context: BenchContext) throws -> Suite {
        var options = Store.Options()
        options.durability = durable ? .full : .none
        let suite = try Store(path: try context.scratch.makeDirectory("policies"), options: options).suite("bench")
        try suite.declare(.counter, forKeysWithPrefix: "c.")
        try suite.declare(.max, forKeysWithPrefix: "m.")
        try suite.declare(.set, forKeysWithPrefix: "s.")
        try suite.batch { b in
            for i in 0..<keys {
                try b.set(i, forKey: "l.\(i)")
                try b.set(i, forKey: "c.\(i)")
                try b.set(i, forKey: "m.\(i)")
                try b.set(["a"], forKey: "s.\(i)")
            }
        }
        return suite
    }

    /// Two replicas that both changed the same keys; the time to pull one into the other (one write
    /// transaction, no fsync, so the merge itself shows).
    private static func merges(_ context: BenchContext) throws -> [Figure] {
        let n = context.pick(quick: 2_000, full: 20_000)
        let runs = context.pick(quick: 1, full: 5)
        let scenario = "\(grouped(n)) keys changed on both replicas, no fsync"
        context.progress("\(name): merging \(scenario), \(runs) runs")
        var samples: [String: [Double]] = [:]
        for run in 0..<runs {
            for (subject, counter) in run % 2 == 0 ? [(lwwMerge, false), (counterMerge, true)] : [(counterMerge, true), (lwwMerge, false)] {
                let (source, target) = try replicaPair(keys: n, counter: counter, context)
                let started = BenchClock.now()
                let report = try Synchronizer().pull(from: source, into: target)
                let elapsed = BenchClock.now() - started
                guard report.recordsChanged == n else { throw BenchError("\(subject): merged \(report.recordsChanged) of \(n) changes") }
                if counter, try target.suite("bench").get("k0", as: Int.self) != 2 {
                    throw BenchError("counter merge: k0 reads \(String(describing: try target.suite("bench").get("k0", as: Int.self))), not 2")
                }
                samples[subject, default: []].append(Double(n) / (Double(elapsed) / 1e9))
                context.scratch.remove(source.directory)
                context.scratch.remove(target.directory)
            }
        }
        return [lwwMerge, counterMerge].map {
            Figure(workload: name, scenario: scenario, subject: $0, metric: "merge", unit: .operationsPerSecond, samples: samples[$0] ?? [])
        }
    }

    /// Two replicas that synced `keys` keys, then each changed every key (an lww set, or an increment).
    private static func replicaPair(keys: Int, counter: Bool, _ context: BenchContext) throws -> (Store, Store) {
        var options = Store.Options()
        options.durability = .none
        let a = try Store(path: try context.scratch.makeDirectory("merge-a"), options: options)
        let b = try Store(path: try context.scratch.makeDirectory("merge-b"), options: options)
        if counter { try a.suite("bench").declare(.counter, forKeysWithPrefix: "k") }
        try a.suite("bench").batch { batch in for i in 0..<keys { try batch.set(0, forKey: "k\(i)") } }
        try Synchronizer().sync(a, b)
        for store in [b, a] { // a writes last, so its lww records are the newer ones
            let suite = try store.suite("bench")
            for i in 0..<keys {
                if counter { try suite.increment("k\(i)") } else { try suite.set(1, forKey: "k\(i)") }
            }
        }
        return (a, b)
    }
}
