import Foundation
import SplitMix

/// Workload 12: many threads of one process setting keys durably at once. Each thread sets its own
/// random existing keys of the 10,000-key store, one key per call, each call durable when it returns.
/// Concord shares commits among the threads that write at once (group commit); raw LMDB and SQLite
/// commit once per set, one writer at a time. Every system runs with 1 thread and with 8; the rate
/// is all threads' sets over the wall time from the common start to the last thread's end. Concord
/// and raw LMDB share one environment among the threads, SQLite gives each thread its own connection
/// (as its documentation asks). Afterwards every set is checked to be there.
enum GroupCommitWorkload: Workload {
    static let name = "group-commit"
    static let title = "12 group commit"
    static let summary = "1 and 8 threads of one process setting keys durably at once: Concord shares commits among them"

    static let systems: [SubjectKind] = [.concord, .lmdb, .sqlite]
    static let threadCounts = [1, 8]
    static let size = 10_000

    static func scenario(threads: Int) -> String { "\(threads) thread\(threads == 1 ? "" : "s"), \(grouped(size)) keys" }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let perThread = context.pick(quick: 20, full: 100)
        var samples: [String: [SubjectKind: [Double]]] = [:]
        for threads in threadCounts {
            context.progress("\(name): \(scenario(threads: threads)), \(context.runs) runs of \(threads) × \(perThread) sets")
            for run in 0..<context.runs {
                for kind in context.rotated(systems, run: run) {
                    let shared = try context.fixtures.subject(kind, size: size, progress: context.progress)
                    let directory = try context.fixtures.directory(kind, size: size, progress: context.progress)
                    // SQLite connections are not shared between threads; the LMDB-based systems share the environment.
                    let subjects = try (0..<threads).map { _ in kind == .sqlite ? try kind.open(directory: directory) : shared }
                    let generation = 1_000 + run * 10 + threads
                    let plans = (0..<threads).map { t in
                        var rng = SeededRandom(seed: UInt64(run * 7919 + t * 31 + threads))
                        return (0..<perThread).map { _ in Int(rng.next() % UInt64(size)) }
                    }
                    let elapsed = try race(subjects, plans: plans, generation: generation)
                    try check(shared, plans: plans, generation: generation, kind: kind)
                    samples[scenario(threads: threads), default: [:]][kind, default: []]
                        .append(Double(threads * perThread) / (Double(elapsed) / 1e9))
                }
            }
        }
        var figures: [Figure] = []
        for threads in threadCounts {
            let s = scenario(threads: threads)
            for kind in systems {
                figures.append(
                    Figure(
                        workload: name, scenario: s, subject: kind.displayName, metric: "sets",
                        unit: .operationsPerSecond, samples: samples[s]?[kind] ?? []))
            }
        }
        return figures
    }

    /// Runs one thread per plan, all starting together; returns the wall time until the last one ended.
    static func race(_ subjects: [any Subject], plans: [[Int]], generation: Int) throws -> UInt64 {
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let failures = FailureLog()
        for (subject, plan) in zip(subjects, plans) {
            let box = SubjectBox(subject)
            done.enter()
            Thread.detachNewThread {
                start.wait()
                do {
                    for i in plan { try box.subject.setDurably(Dataset.key(i), Dataset.value(i, generation: generation)) }
                } catch { failures.record(error) }
                done.leave()
            }
        }
        let began = BenchClock.now()
        for _ in plans { start.signal() }
        done.wait()
        let elapsed = BenchClock.now() - began
        if let error = failures.first { throw BenchError("a set failed with \(plans.count) threads: \(error)") }
        return elapsed
    }

    /// Every key a thread set reads back the value of this run (keys set by two threads hold the same value).
    static func check(_ subject: any Subject, plans: [[Int]], generation: Int, kind: SubjectKind) throws {
        for i in Set(plans.joined()) {
            let expected = Dataset.value(i, generation: generation)
            let found: BenchValue? =
                switch expected {
                case .string: try subject.readString(Dataset.key(i)).map { .string($0) }
                case .int: try subject.readInt(Dataset.key(i)).map { .int($0) }
                }
            guard found == expected else {
                throw BenchError("\(kind.displayName): \(Dataset.key(i)) reads \(String(describing: found)) after the threads set \(expected)")
            }
        }
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        let one = scenario(threads: 1)
        let eight = scenario(threads: 8)
        let concord8 = figures.find(name, eight, .concord, metric: "sets")
        return [
            .bound(
                "group commit: 8 threads at least 3× Concord's single-thread durable rate",
                value: Ratio.speedup(concord8, against: figures.find(name, one, .concord, metric: "sets")),
                limit: 3, atLeast: true, mark: .faster(concord8, than: figures.find(name, one, .concord, metric: "sets"), by: 3)
            ) { "\(Ratio.format($0)) the single-thread rate" },
            .bound(
                "group commit: 8 threads at least as fast as SQLite with 8 threads",
                value: Ratio.speedup(concord8, against: figures.find(name, eight, .sqlite, metric: "sets")),
                limit: 1, atLeast: true, mark: .faster(concord8, than: figures.find(name, eight, .sqlite, metric: "sets"), by: 1)
            ) { "\(Ratio.format($0)) SQLite's rate" }
        ]
    }
}

/// Hands a subject to a writer thread; the workload waits for every thread before touching it again.
private final class SubjectBox: @unchecked Sendable {
    let subject: any Subject
    init(_ subject: any Subject) { self.subject = subject }
}

/// The first error any writer thread met.
private final class FailureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []
    func record(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}
