import Concord
import Dispatch
import Synchronization

/// A change a test waits for. Observation starts when the expectation is made, so a change committed
/// right after — by this process, another process or a sync — is never missed; then wait for it,
/// blocking (`wait(timeout:)`) or async (`value(timeout:)`, which never blocks a thread).
///
/// <!-- assume: func runOtherProcess(_ arguments: String...) throws {} -->
/// ```swift
/// let expectation = try suite.expectChange(of: "theme") { $0.value == .string("dark") }
/// try runOtherProcess("set", "theme", "dark")
/// let change = try expectation.wait(timeout: .seconds(5))
/// #expect(change.origin == .otherProcess)
/// ```
public final class ChangeExpectation: Sendable {
    /// The suite observed.
    ///
    /// <!-- assume: let expectation = try suite.expectChange(of: "theme") -->
    /// ```swift
    /// print(expectation.suite)   // "app"
    /// ```
    public let suite: String
    /// The key observed.
    ///
    /// <!-- assume: let expectation = try suite.expectChange(of: "theme") -->
    /// ```swift
    /// print(expectation.key)     // "theme"
    /// ```
    public let key: String
    private let inbox: Inbox
    private let token: ObservationToken

    init(suite: Suite, key: String, where predicate: @escaping @Sendable (Change) -> Bool) throws {
        self.suite = suite.name
        self.key = key
        let inbox = Inbox()
        self.inbox = inbox
        token = try suite.changes(for: key).start(onError: { inbox.finish(.failure($0)) }) { change in
            if predicate(change) { inbox.finish(.success(change)) }
        }
    }

    deinit { token.cancel() }

    /// How many async waits (`value(timeout:)`) are suspended now, for the tests of cancellation.
    package var suspendedWaits: Int { inbox.suspendedWaits }

    /// Waits on this thread for the first matching change (or one that arrived already).
    ///
    /// <!-- assume: let expectation = try suite.expectChange(of: "theme") -->
    /// ```swift
    /// let change = try expectation.wait(timeout: .seconds(5))
    /// ```
    ///
    /// - Parameter timeout: How long to wait at most.
    /// - Returns: The first change that matched.
    /// - Throws: ``ConcordError`` `.timedOut` when none arrived in time; the `ConcordError` observation failed with.
    public func wait(timeout: Duration) throws -> Change {
        guard let outcome = inbox.wait(until: .now() + timeout.dispatchInterval) else {
            throw ConcordError.noChange(suite: suite, key: key, within: timeout)
        }
        return try outcome.get()
    }

    /// Waits, suspending the task rather than blocking a thread, for the first matching change
    /// (or one that arrived already).
    ///
    /// <!-- assume: let expectation = try suite.expectChange(of: "theme") -->
    /// ```swift
    /// let change = try await expectation.value(timeout: .seconds(5))
    /// ```
    ///
    /// - Parameter timeout: How long to wait at most.
    /// - Returns: The first change that matched.
    /// - Throws: ``ConcordError`` `.timedOut` when none arrived in time; `CancellationError` when the task was
    ///   cancelled; the `ConcordError` observation failed with.
    public func value(timeout: Duration) async throws -> Change {
        let (suite, key, inbox) = (self.suite, self.key, self.inbox)
        return try await withThrowingTaskGroup(of: Change.self) { group in
            group.addTask { try await inbox.arrival() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw ConcordError.noChange(suite: suite, key: key, within: timeout)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}

/// Where the first matching change (or the observation's error) lands, and who waits for it.
private final class Inbox: Sendable {
    private struct State {
        var outcome: Result<Change, ConcordError>?
        var waiters: [Int: CheckedContinuation<Change, any Error>] = [:]
        var nextWaiter = 0
    }
    private let state = Mutex(State())
    private let arrived = DispatchSemaphore(value: 0)

    /// How many `arrival()` calls are suspended now.
    var suspendedWaits: Int { state.withLock { $0.waiters.count } }

    /// Keeps the first outcome and wakes every waiter.
    func finish(_ outcome: Result<Change, ConcordError>) {
        let waiters = state.withLock { s -> [CheckedContinuation<Change, any Error>]? in
            guard s.outcome == nil else { return nil }
            s.outcome = outcome
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        guard let waiters else { return } // a later change: the first one stays
        for waiter in waiters { waiter.resume(with: outcome.mapError { $0 }) }
        arrived.signal()
    }

    /// Blocks until the outcome is there (nil when `deadline` passed first).
    func wait(until deadline: DispatchTime) -> Result<Change, ConcordError>? {
        if let outcome = state.withLock({ $0.outcome }) { return outcome }
        guard arrived.wait(timeout: deadline) == .success else { return state.withLock { $0.outcome } }
        arrived.signal() // pass the wake-up on to the next blocked waiter
        return state.withLock { $0.outcome }
    }

    /// Suspends until the outcome is there; ends with `CancellationError` when the task is cancelled.
    func arrival() async throws -> Change {
        let id = state.withLock { s -> Int in
            defer { s.nextWaiter += 1 }
            return s.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Change, any Error>) in
                let ready = state.withLock { s -> Result<Change, any Error>? in
                    if let outcome = s.outcome { return outcome.mapError { $0 } }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}

extension Duration {
    /// The duration as Dispatch counts time.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(Int(min(seconds, Int64(Int.max / 1_000_000_000 - 1))) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
