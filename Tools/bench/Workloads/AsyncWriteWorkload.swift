import Concord
import Dispatch
import Foundation
import Synchronization

/// Workload 15: the async write path. The same writes through `try suite.set` on the caller's
/// thread and through `try await suite.set`, which hands the transaction to the store's own thread
/// and suspends until it is done — durable (each commit fsynced, as apps write) and without fsync
/// (so the hand-off's own cost shows). Both paths write the same keys of one store, alternating run
/// by run; the ratio column is the async path's time over the synchronous call's.
enum AsyncWriteWorkload: Workload {
    static let name = "async-write"
    static let title = "15 async write path"
    static let summary = "try await suite.set (the store's thread) beside the synchronous call, durable and without fsync"

    static let syncSubject = SubjectKind.concord.displayName + " sync set"
    static let asyncSubject = "async set (await)"

    static func run(_ context: BenchContext) throws -> [Figure] {
        var figures: [Figure] = []
        for durable in [true, false] { figures += try writes(durable: durable, context) }
        figures += try concurrentWrites(context)
        return figures
    }

    /// Eight writers at once, durable: eight threads calling `suite.set` (they share group commits)
    /// beside eight tasks awaiting `suite.set` (their writes queue on the store's one thread, so each
    /// is a commit of its own). Time per write over all of them.
    private static func concurrentWrites(_ context: BenchContext) throws -> [Figure] {
        let writers = 8
        let keys = 1_000
        let each = context.pick(quick: 10, full: 50)
        let runs = context.pick(quick: 3, full: 7)
        let scenario = "8 writers at once, 1,000 keys, durable"
        context.progress("\(name): \(scenario), \(runs) runs of \(writers) × \(each) sets per path")
        let suite = try Store(path: try context.scratch.makeDirectory("async-write-8")).suite("bench")
        try suite.batch { b in for i in 0..<keys { try b.set(i, forKey: "k\(i)") } }
        var samples: [String: [Double]] = [:]
        for run in 0..<runs {
            for subject in run % 2 == 0 ? [syncSubject, asyncSubject] : [asyncSubject, syncSubject] {
                let failures = Mutex<[String]>([])
                let nanoseconds: UInt64
                if subject == syncSubject {
                    nanoseconds = BenchClock.measure {
                        DispatchQueue.concurrentPerform(iterations: writers) { w in
                            do { for k in 0..<each { try suite.set(run, forKey: "k\((w * each + k) % keys)") } } catch {
                                failures.withLock { $0.append("\(error)") }
                            }
                        }
                    }
                } else {
                    nanoseconds = try awaitConcurrentWrites(suite, writers: writers, each: each, keys: keys, value: run)
                }
                if let failure = failures.withLock({ $0.first }) { throw BenchError("\(name): \(failure)") }
                samples[subject, default: []].append(Double(nanoseconds) / 1e3 / Double(writers * each))
            }
        }
        return [syncSubject, asyncSubject].map {
            Figure(workload: name, scenario: scenario, subject: $0, metric: "per write", unit: .microseconds, samples: samples[$0] ?? [])
        }
    }

    /// `writers` tasks at once, each awaiting `each` sets; timed from before the first task starts
    /// to the last one's end.
    private static func awaitConcurrentWrites(_ suite: Suite, writers: Int, each: Int, keys: Int, value: Int) throws -> UInt64 {
        let outcome = Mutex<Result<UInt64, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<UInt64, any Error>
            do {
                let began = BenchClock.now()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for w in 0..<writers {
                        group.addTask { for k in 0..<each { try await suite.set(value, forKey: "k\((w * each + k) % keys)") } }
                    }
                    try await group.waitForAll()
                }
                result = .success(BenchClock.now() - began)
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    private static func writes(durable: Bool, _ context: BenchContext) throws -> [Figure] {
        let keys = 1_000
        let scenario = "one set per commit, 1,000 keys" + (durable ? ", durable" : ", no fsync")
        let ops = durable ? context.pick(quick: 50, full: 400) : context.pick(quick: 500, full: 5_000)
        let runs = context.pick(quick: 3, full: 11)
        context.progress("\(name): \(scenario), \(runs) runs of \(ops) sets per path")
        var options = Store.Options()
        options.durability = durable ? .full : .none
        let suite = try Store(path: try context.scratch.makeDirectory("async-write"), options: options).suite("bench")
        try suite.batch { b in for i in 0..<keys { try b.set(i, forKey: "k\(i)") } }
        // Warm both paths (the store's thread starts with its first job).
        try awaitWrites(suite, from: 0, count: 10, keys: keys)
        for i in 0..<10 { try suite.set(i, forKey: "k\(i)") }

        var samples: [String: [Double]] = [:]
        var generation = keys
        for run in 0..<runs {
            for subject in run % 2 == 0 ? [syncSubject, asyncSubject] : [asyncSubject, syncSubject] {
                let nanoseconds: UInt64
                if subject == syncSubject {
                    nanoseconds = try BenchClock.measure {
                        for k in 0..<ops { try suite.set(generation + k, forKey: "k\(k % keys)") }
                    }
                } else {
                    nanoseconds = try awaitWrites(suite, from: generation, count: ops, keys: keys)
                }
                generation += ops
                samples[subject, default: []].append(Double(nanoseconds) / 1e3 / Double(ops))
            }
        }
        for k in 0..<keys where try suite.get("k\(k)", as: Int.self) == nil { throw BenchError("\(name): k\(k) lost its value") }
        return [syncSubject, asyncSubject].map {
            Figure(workload: name, scenario: scenario, subject: $0, metric: "per write", unit: .microseconds, samples: samples[$0] ?? [])
        }
    }

    /// Runs `count` awaited sets one after another in a task, timed inside the task (the task's own
    /// start is not counted); this thread waits for it.
    @discardableResult
    private static func awaitWrites(_ suite: Suite, from start: Int, count: Int, keys: Int) throws -> UInt64 {
        let outcome = Mutex<Result<UInt64, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<UInt64, any Error>
            do {
                let began = BenchClock.now()
                for k in 0..<count { try await suite.set(start + k, forKey: "k\(k % keys)") }
                result = .success(BenchClock.now() - began)
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}
