import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Concord

/// A one-shot gate a store-thread job waits on (with a deadline, so a broken implementation fails
/// instead of hanging), opened from elsewhere.
private final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let entered = Atomic<Bool>(false)
    private let expired = Atomic<Bool>(false)

    var isEntered: Bool { entered.load(ordering: .acquiring) }
    /// Whether a job gave up waiting: what a test spins for may then never happen.
    var hasExpired: Bool { expired.load(ordering: .acquiring) }

    /// Marks the gate entered and waits for it to open; false when it stayed shut for `seconds`.
    func enterAndWait(seconds: Int) -> Bool {
        entered.store(true, ordering: .releasing)
        let opened = semaphore.wait(timeout: .now() + .seconds(seconds)) == .success
        if !opened { expired.store(true, ordering: .releasing) }
        return opened
    }

    func open() { semaphore.signal() }
}

/// A counter that escaping closures can share.
private final class Tally: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

@Suite struct AsyncWriteTests {
    /// The proof that async writes never block the cooperative pool. One write holds the store's
    /// thread inside its transaction until a probe task — which can only run on the cooperative
    /// pool — opens the gate; meanwhile several times more writes than the pool has threads are in
    /// flight. Were an async write to block its pool thread (waiting for the transaction or for
    /// LMDB's write lock), every pool thread would be blocked, the probe could never run, and the
    /// gate would time out: `opened` would be false (checked: with `StoreThread.run` calling its body
    /// inline, this test fails that way). Every body also records the thread it ran on.
    @Test func concurrentAsyncWritesLeaveTheCooperativePoolFree() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let poolWidth = ProcessInfo.processInfo.activeProcessorCount
        let writers = poolWidth * 4 + 8
        let gate = Gate()
        let submitted = Tally()
        let offStoreThread = Tally()

        let opened = try await withThrowingTaskGroup(of: Bool?.self) { group in
            group.addTask {
                try await suite.update("held", as: Int.self) { value -> Bool? in
                    if !StoreThread.isCurrent { offStoreThread.add() }
                    value = 1
                    return gate.enterAndWait(seconds: 90) // generous: the whole suite shares the pool
                }
            }
            for _ in 0..<writers {
                group.addTask {
                    submitted.add()
                    return try await suite.update("count", as: Int.self) { value -> Bool? in
                        if !StoreThread.isCurrent { offStoreThread.add() }
                        value = (value ?? 0) + 1
                        return nil
                    }
                }
            }
            group.addTask {
                // The probe: runs on the pool, and opens the gate once the held write is inside its
                // transaction and every writer has been submitted.
                let deadline = ContinuousClock.now + .seconds(90)
                while !(gate.isEntered && submitted.value == writers), ContinuousClock.now < deadline {
                    await Task.yield()
                }
                gate.open()
                return nil
            }
            var opened: Bool?
            for try await result in group { if let result { opened = result } }
            return opened
        }
        #expect(opened == true, "the probe could not run while the writes were in flight: the pool was blocked")
        #expect(offStoreThread.value == 0, "a write body ran off the store's thread")
        #expect(try suite.get("count", as: Int.self) == writers)
        #expect(try suite.get("held", as: Int.self) == 1)
    }

    @Test func asyncCallsWriteWhatTheSynchronousOnesWrite() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let version = try await suite.set("dark", forKey: "theme")
        #expect(version == (try suite.record(forKey: "theme"))?.version)
        #expect(try await suite.increment("launches", by: 3) == 3)
        #expect(
            try await suite.update("recent", as: [String].self) {
                $0 = ($0 ?? []) + ["a"]
                return $0!.count
            } == 1)
        try await suite.batch { b in
            try b.set(1, forKey: "a")
            try b.remove("theme")
        }
        #expect(try suite.get("a", as: Int.self) == 1)
        #expect(try suite.contains("theme") == false)
        #expect(try await suite.remove("a") != nil)
        #expect(try await suite.remove("a") == nil)
        try await suite.set(5, forKey: "b")
        #expect(try await suite.reset() == 3) // launches, recent, b
        #expect(try suite.keys().isEmpty)
    }

    @Test func asyncCallsThrowTheSynchronousErrorsAndWriteNothing() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try await suite.set("Ada", forKey: "name")
        let seq = try store.lastSeq()
        await #expect(throws: ConcordError.typeMismatch(suite: "app", key: "name", stored: "string", requested: "Int")) {
            try await suite.increment("name")
        }
        await #expect(throws: ConcordError.typeMismatch(suite: "app", key: "name", stored: "string", requested: "Int")) {
            try await suite.update("name", as: Int.self) { $0 = 1 }
        }
        let syncError = #expect(throws: ConcordError.self) { try suite.set(1, forKey: "") }
        let asyncError = await #expect(throws: ConcordError.self) { try await suite.set(1, forKey: "") }
        #expect(syncError == asyncError)
        await #expect { try await suite.set(Double.nan, forKey: "x") } throws: { code($0) == .unsupportedValue }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await suite.batch { b in
                try b.set(1, forKey: "y")
                throw Refused()
            }
        }
        #expect(try store.lastSeq() == seq)
    }

    @Test func aCallCancelledBeforeItsWriteStartsThrowsAndWritesNothing() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let gate = Gate()
        // Every store thread busy: one inside the held write's transaction, the others waiting to
        // join its group commit — so the next job waits in the queue, not started.
        let holder = Task {
            try await suite.update("held", as: Int.self) {
                $0 = 1
                _ = gate.enterAndWait(seconds: 600) // generous: the whole suite shares the pool
            }
        }
        while !gate.isEntered { await Task.yield() }
        var joiners: [Task<Void, any Error>] = []
        for i in 1..<StoreThread.threadLimit { joiners.append(Task { try await suite.set(i, forKey: "joiner\(i)") }) }
        // Each wait also ends when the gate gives up: the held write then commits, and the queued job
        // would run at once instead of waiting, so the test fails instead of spinning forever.
        while store.core.group.waitingCount < StoreThread.threadLimit - 1 && !gate.hasExpired { await Task.yield() }
        let queued = Task { try await suite.set("never", forKey: "cancelled") }
        while store.thread.waitingJobs == 0 && !gate.hasExpired { await Task.yield() }
        try #require(!gate.hasExpired, "the held write waited 600 s for the test to reach its queued job")
        queued.cancel()
        let outcome = await queued.result
        gate.open()
        try await holder.value
        for joiner in joiners { try await joiner.value }
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(try suite.contains("cancelled") == false)

        let alreadyCancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await suite.increment("counter")
        }
        await #expect(throws: CancellationError.self) { try await alreadyCancelled.value }
        #expect(try suite.contains("counter") == false)
    }

    @Test func aCallCancelledAfterItsWriteStartedCompletes() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let gate = Gate()
        let writer = Task {
            try await suite.update("late", as: String.self) {
                $0 = "written"
                _ = gate.enterAndWait(seconds: 60)
                return 7
            }
        }
        while !gate.isEntered { await Task.yield() }
        writer.cancel()
        gate.open()
        #expect(try await writer.value == 7)
        #expect(try suite.get("late", as: String.self) == "written")
    }
}
