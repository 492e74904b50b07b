import Foundation
import SplitMix

/// Workload 13: what the cap on a group commit costs. 256 threads of one process each set 12 random
/// existing keys of the 10,000-key store durably, all at once (the queue far longer than a group),
/// with Concord's default cap of 128 writes per commit, with lower caps, and uncapped. The rate is
/// all threads' sets over the wall time; the mean commit is that time over the commits made (the
/// replica's commit stamp before and after), so it shows how long a commit holds its group.
/// Every set is checked afterwards. No goal: it shows the trade the cap makes (throughput for a
/// bounded commit), which `GroupCommit.defaultLimit` was picked from.
enum GroupCapWorkload: Workload {
    static let name = "group-cap"
    static let title = "13 group-commit cap"
    static let summary = "256 threads setting keys durably at once: commits capped at 128 writes (the default), 64, 32, and uncapped"

    static let size = 10_000
    /// The default cap first (the table compares the others with the first Concord row), uncapped last.
    static let caps = [128, 64, 32, Int.max]

    static func subject(cap: Int) -> String {
        cap == Int.max ? "Concord, uncapped" : "Concord, at most \(cap) per commit\(cap == caps[0] ? " (default)" : "")"
    }

    static func scenario(_ context: BenchContext) -> String {
        "\(context.pick(quick: 64, full: 256)) threads, \(grouped(size)) keys"
    }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let threads = context.pick(quick: 64, full: 256)
        let perThread = context.pick(quick: 4, full: 12)
        guard let concord = try context.fixtures.subject(.concord, size: size, progress: context.progress) as? ConcordSubject else {
            throw BenchError("the Concord fixture is not a ConcordSubject")
        }
        let store = concord.store
        let defaultCap = store.writesPerCommitForTesting
        guard defaultCap == caps[0] else { throw BenchError("Concord's default cap is \(defaultCap), this workload expects \(caps[0])") }
        defer { store.writesPerCommitForTesting = defaultCap }
        var rates: [Int: [Double]] = [:]
        var commits: [Int: [Double]] = [:]
        context.progress("\(name): \(scenario(context)), \(context.runs) runs of \(threads) × \(perThread) sets per cap")
        for run in 0..<context.runs {
            for cap in context.rotated(caps, run: run) {
                store.writesPerCommitForTesting = cap
                let generation = 2_000 + run * 10 + caps.firstIndex(of: cap)!
                let plans = (0..<threads).map { t in
                    var rng = SeededRandom(seed: UInt64(run * 7919 + t * 31 + cap % 1_000))
                    return (0..<perThread).map { _ in Int(rng.next() % UInt64(size)) }
                }
                let before = store.commitStamp
                let elapsed = try GroupCommitWorkload.race(Array(repeating: concord as any Subject, count: threads), plans: plans, generation: generation)
                let made = store.commitStamp - before
                try GroupCommitWorkload.check(concord, plans: plans, generation: generation, kind: .concord)
                rates[cap, default: []].append(Double(threads * perThread) / (Double(elapsed) / 1e9))
                commits[cap, default: []].append(Double(elapsed) / 1_000 / Double(max(made, 1)))
            }
        }
        let s = scenario(context)
        return caps.map { cap in
            Figure(
                workload: name, scenario: s, subject: subject(cap: cap), metric: "sets",
                unit: .operationsPerSecond, samples: rates[cap] ?? [])
        }
            + caps.map { cap in
                Figure(
                    workload: name, scenario: s, subject: subject(cap: cap), metric: "mean commit",
                    unit: .microseconds, samples: commits[cap] ?? [])
            }
    }
}
