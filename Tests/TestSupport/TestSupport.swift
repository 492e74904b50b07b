@_exported import ChildProcesses
import Concord
@_exported import ConcordTesting
import Foundation
@_exported import SplitMix
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a built executable (or the program at a path) to completion, with `environment` added to this
/// process's; kills it after `timeout` seconds.
@discardableResult
public func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 120) throws -> ProcessResult {
    try ChildProcess(executable, arguments, environment: environment).wait(timeout: timeout)
}

/// Runs `work` on a thread of its own and suspends until it returns: a test that blocks for minutes
/// (a million writes, a child process it waits for) must hold no thread of Swift's cooperative pool,
/// which has one per core, or the async tests running beside it stall until it ends. `work` records
/// no issues (expectations belong to the test's own task).
///
/// ```swift
/// let result = try await offThePool { try run("sync-tool", ["sync", a, b], timeout: 600) }
/// ```
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// Waits until this machine's wall clock reads later than `milliseconds` since 1970, so a write made
/// after it gets a later version than one stamped at `milliseconds` (versions are ordered by time first).
public func waitForWallClock(after milliseconds: UInt64) {
    while UInt64(Date().timeIntervalSince1970 * 1000) <= milliseconds { usleep(100) }
}

/// Collects values from any thread (for observer callbacks in tests).
public final class Collector<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    public init() {}
    public func append(_ item: T) { items.withLock { $0.append(item) } }
    public var values: [T] { items.withLock { $0 } }
    public var count: Int { items.withLock { $0.count } }

    /// Waits until at least `n` values arrived (or the timeout passed); returns whether they did.
    public func wait(for n: Int, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while count < n && Date() < deadline { usleep(1_000) }
        return count >= n
    }

    /// Like `wait(for:timeout:)`, for async code: it sleeps the task instead of blocking a thread of
    /// the cooperative pool (which the values may need in order to arrive).
    public func arrival(of n: Int, timeout: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while count < n && Date() < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        return count >= n
    }
}

/// The code of a Concord error (nil for nothing, or another error).
public func code(_ error: (any Error)?) -> ConcordError.Code? {
    (error as? ConcordError)?.code
}

private func suffix(_ comment: Comment?) -> String { comment.map { ": \($0.rawValue)" } ?? "" }

/// Expects `body` to throw a `ConcordError` of code `expected`, so a test checks which error a user
/// gets, not only that one was thrown.
///
/// ```swift
/// expectError(.invalidKey) { try suite.set(1, forKey: "") }
/// ```
public func expectError(
    _ expected: ConcordError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record(Comment(rawValue: "expected a ConcordError of code \(expected), nothing was thrown" + suffix(comment)), sourceLocation: sourceLocation)
    } catch let error as ConcordError {
        if error.code != expected {
            Issue.record(
                Comment(rawValue: "expected a ConcordError of code \(expected), got \(error.code): \(error)" + suffix(comment)), sourceLocation: sourceLocation
            )
        }
    } catch {
        Issue.record(
            Comment(rawValue: "expected a ConcordError of code \(expected), got \(Swift.type(of: error)): \(error)" + suffix(comment)),
            sourceLocation: sourceLocation)
    }
}

/// Every error handed to `UnhandledErrors` while the tests run (all test targets share one process,
/// so one handler collects for all of them; a test finds its own by suite or message).
///
/// ```swift
/// ReportedErrors.install()
/// // … after a failing non-throwing setter:
/// #expect(ReportedErrors.of(suite: suite.name).count == 1)
/// ```
public enum ReportedErrors {
    public static let all = Collector<any Error & Sendable>()
    private static let installed = Mutex(false)

    /// Installs the collecting handler (once per process).
    public static func install() {
        let first = installed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { UnhandledErrors.setHandler { all.append($0) } }
    }

    /// The errors reported for `suite`.
    public static func of(suite: String) -> [ConcordError] {
        all.values.compactMap { $0 as? ConcordError }.filter { $0.suite == suite }
    }

    /// The reported errors whose description contains `text`.
    public static func containing(_ text: String) -> [String] {
        all.values.map { "\($0)" }.filter { $0.contains(text) }
    }
}

extension ConcordError {
    /// Whether this error is `expected` as a wrapper reports it (the same code, named at the key it
    /// was reading, writing or observing): its message ends with `expected`'s.
    public func wraps(_ expected: ConcordError) -> Bool { code == expected.code && message.hasSuffix(expected.message) }
}
