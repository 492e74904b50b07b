import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Concord

/// When `update`'s closure runs more than once, and when `batch`'s never does: exactly the rule
/// their documentation states.
@Suite struct UpdateRerunTests {
    /// Concurrent updates of one key from many threads: each closure runs exactly once (writers take
    /// turns on the write lock; nothing is retried on conflict), and none is lost.
    @Test func updatesRunOnceEachUnderContention() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let runs = Atomic<Int>(0)
        let threads = 6
        let each = 25
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<each {
                try! suite.update("count", as: Int.self) { n in
                    runs.add(1, ordering: .relaxed)
                    n = (n ?? 0) + 1
                }
            }
        }
        for _ in 0..<each {
            try await suite.update("count", as: Int.self) { n in
                runs.add(1, ordering: .relaxed)
                n = (n ?? 0) + 1
            }
        }
        #expect(try suite.get("count", as: Int.self) == (threads + 1) * each)
        #expect(runs.load(ordering: .relaxed) == (threads + 1) * each)
    }

    /// A write that outgrows the memory map is rolled back, the map grows, and the transaction runs
    /// again from the start: the closure runs more than once, each run from the value stored before,
    /// and the result of the run that committed is returned. A write that fits runs it once, and
    /// `batch`'s closure runs once even when its transaction is retried.
    @Test func theClosureRunsAgainOnlyWhenTheMapMustGrow() async throws {
        var options = Store.Options()
        options.initialMapSize = 1 << 20
        let store = try Store.temporary(options: options)
        let suite = try store.suite("app")

        let smallRuns = Atomic<Int>(0)
        let small = try await suite.update("generation", as: Int.self) { n -> Int in
            n = (n ?? 0) + 1
            return smallRuns.add(1, ordering: .relaxed).newValue
        }
        #expect(small == 1 && smallRuns.load(ordering: .relaxed) == 1)

        let mapBefore = try store.statistics().map.mapBytes
        let big = Data(repeating: 7, count: 3 << 20)
        let starts = Mutex<[Data?]>([])
        let attempt = try await suite.update("blob", as: Data.self) { blob -> Int in
            let count = starts.withLock { s in
                s.append(blob)
                return s.count
            }
            blob = big
            return count
        }
        let seen = starts.withLock { $0 }
        #expect(try store.statistics().map.mapBytes > mapBefore, "the map grew")
        #expect(seen.count > 1, "the transaction ran again after the map grew")
        #expect(attempt == seen.count, "the committed run's result is returned")
        #expect(seen.allSatisfy { $0 == nil }, "each run starts again from what is stored")
        #expect(try suite.get("blob", as: Data.self) == big)
        #expect(try store.journalEntries(after: 0).count == 2)

        let mapBeforeBatch = try store.statistics().map.mapBytes
        let builds = Atomic<Int>(0)
        let large = 4 << 20 - 64
        try await suite.batch { b in
            builds.add(1, ordering: .relaxed)
            try b.set(Data(repeating: 1, count: large), forKey: "blob3")
            try b.set(Data(repeating: 2, count: large), forKey: "blob4")
        }
        #expect(try store.statistics().map.mapBytes > mapBeforeBatch, "the batch's transaction outgrew the map too")
        #expect(builds.load(ordering: .relaxed) == 1)
        #expect(try suite.get("blob4", as: Data.self)?.count == large)
    }
}
