import Concord
@_exported import ConcordTesting
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the package's built executables (`sync-tool`, `concord-test-helper`, …).
public enum Binaries {
    /// The directory holding the built products: `$CONCORD_BIN_DIR`, or beside the test bundle.
    public static var directory: String {
        if let dir = ProcessInfo.processInfo.environment["CONCORD_BIN_DIR"] { return dir }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.path + "/sync-tool") { return url.path }
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug"
    }

    public static func path(_ name: String) -> String { directory + "/" + name }
}

/// The result of a finished process.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// A child process whose output goes to files, so it can be read even after a SIGKILL.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let outPath: String
    private let errPath: String

    /// Starts `executable` (a name from `Binaries` or a path) with `arguments`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil) throws {
        let exe = executable.contains("/") ? executable : Binaries.path(executable)
        let tmp = NSTemporaryDirectory() + "/concord-child-\(UUID().uuidString)"
        outPath = tmp + ".out"
        errPath = tmp + ".err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: exe)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The child writes through its own copies. Close ours now: Foundation keeps a Process (and its
        // handles) alive until it notices the exit, which it can miss, and every leaked descriptor brings
        // the test process nearer the size of /proc/self/fd where Foundation's Process.run over-reads
        // (swift-corelibs-foundation #5472) and crashes.
        try? out.close()
        try? err.close()
    }

    deinit {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
    }

    public var pid: Int32 { process.processIdentifier }

    /// What the child has written to stdout so far.
    public var output: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    public var errorOutput: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
    /// Complete lines of stdout so far (a line cut by a kill is left out).
    public var completeLines: [String] {
        let text = output
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast() // the text after the last newline: empty, or a partial line
        return lines.filter { !$0.isEmpty }
    }

    public func kill(_ signal: Int32 = SIGKILL) { Glibc.kill(process.processIdentifier, signal) }

    /// Waits for the child to exit (at most `timeout` seconds, then kills it) and returns its result.
    @discardableResult
    public func wait(timeout: Double = 120) -> ProcessResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning { kill() }
        // A child killed right after it started can become a zombie Foundation never notices;
        // never wait for it unboundedly: reap it ourselves if Foundation has not within 5 s.
        let reapDeadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < reapDeadline { usleep(2_000) }
        if process.isRunning {
            var status: Int32 = 0
            let reaped = waitpid(process.processIdentifier, &status, WNOHANG) == process.processIdentifier
            return ProcessResult(
                status: reaped ? (status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)) : -1,
                stdout: output, stderr: errorOutput)
        }
        return ProcessResult(status: process.terminationStatus, stdout: output, stderr: errorOutput)
    }

    /// Waits until stdout has a complete line satisfying `predicate` (or the timeout passes).
    public func waitForLine(timeout: Double = 30, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if completeLines.contains(where: predicate) { return true }
            if !process.isRunning { return completeLines.contains(where: predicate) }
            usleep(2_000)
        }
        return false
    }
}

/// Runs a built executable to completion.
@discardableResult
public func run(_ executable: String, _ arguments: [String], timeout: Double = 120) throws -> ProcessResult {
    try ChildProcess(executable, arguments).wait(timeout: timeout)
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

/// A seeded, reproducible random generator (SplitMix64) for tests that print their seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
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
