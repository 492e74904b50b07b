import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process of a test or a tool, never left behind: killed (SIGKILL) if it is still running
/// when its last reference goes, and reaped even when Foundation misses its exit.
///
/// ```swift
/// let child = try ChildProcess("sync-tool", ["watch", directory, "app"])
/// _ = child.waitForLine { $0.hasPrefix("watching") }
/// child.kill()
/// let result = child.wait()
/// ```
public final class ChildProcess: @unchecked Sendable {
    /// Where the child's standard streams go.
    public enum Streams: Sendable, Equatable {
        /// Standard output and error into files of their own, readable while it runs and after a
        /// SIGKILL (`output`, `completeLines`, `waitForLine`); standard input empty.
        case files
        /// A conversation: lines to its standard input (`send`) and from its standard output
        /// (`readLine`), as they come; its standard error is this process's.
        case conversation
    }

    /// The process (to read its state: `isRunning`, `terminationReason`).
    public let process = Process()
    /// Where the streams go.
    public let streams: Streams
    private let outPath: String
    private let errPath: String
    private let input = Pipe()
    private let outputPipe = Pipe()
    private var buffer: [UInt8] = []
    private let started = ContinuousClock.now

    /// Starts `executable` (a path, or the name of one of the package's built products: `Binaries`)
    /// with `arguments`, with `environment` added to this process's, in `directory`.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil, streams: Streams = .files
    ) throws {
        self.streams = streams
        let exe = executable.contains("/") ? executable : Binaries.path(executable)
        let tmp = NSTemporaryDirectory() + "/concord-child-\(UUID().uuidString)"
        outPath = tmp + ".out"
        errPath = tmp + ".err"
        process.executableURL = URL(fileURLWithPath: exe)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        switch streams {
        case .conversation:
            process.standardInput = input
            process.standardOutput = outputPipe
            try process.run()
        case .files:
            _ = FileManager.default.createFile(atPath: outPath, contents: nil)
            _ = FileManager.default.createFile(atPath: errPath, contents: nil)
            let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
            let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // The child writes through its own copies. Close ours now: Foundation keeps a Process (and its
            // handles) alive until it notices the exit, which it can miss, and every leaked descriptor brings
            // this process nearer the size of /proc/self/fd where Foundation's Process.run over-reads
            // (swift-corelibs-foundation #5472) and crashes.
            try? out.close()
            try? err.close()
        }
    }

    deinit {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if streams == .files {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
    }

    /// The child's process id.
    public var pid: Int32 { process.processIdentifier }

    /// What the child has written to stdout so far (`.files`).
    public var output: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    /// The bytes the child has written to stdout so far, as they are (`.files`): for a child that speaks
    /// a binary protocol there.
    public var outputBytes: [UInt8] { (FileManager.default.contents(atPath: outPath)).map { [UInt8]($0) } ?? [] }
    /// What the child has written to stderr so far (`.files`).
    public var errorOutput: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
    /// Complete lines of stdout so far, a line cut by a kill left out (`.files`).
    public var completeLines: [String] { Self.completeLines(output) }

    /// Sends `signal` (SIGKILL unless told) to the child.
    public func kill(_ signal: Int32 = SIGKILL) { Glibc.kill(process.processIdentifier, signal) }

    /// Waits for the child to exit (at most `timeout` seconds, then kills it) and returns how it ended.
    @discardableResult
    public func wait(timeout: Double = 120) -> ProcessResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        let timedOut = process.isRunning
        if timedOut { kill() }
        // A child killed right after it started can become a zombie Foundation never notices;
        // never wait for it unboundedly: reap it ourselves if Foundation has not within 5 s.
        let reapDeadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < reapDeadline { usleep(2_000) }
        let milliseconds = Self.milliseconds(since: started)
        if process.isRunning {
            var status: Int32 = 0
            let reaped = waitpid(process.processIdentifier, &status, WNOHANG) == process.processIdentifier
            let signaled = reaped && status & 0x7f != 0
            return ProcessResult(
                status: reaped ? (signaled ? status & 0x7f : (status >> 8) & 0xff) : -1, signaled: signaled, timedOut: timedOut,
                stdout: output, stderr: errorOutput, milliseconds: milliseconds)
        }
        return ProcessResult(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal, timedOut: timedOut,
            stdout: streams == .files ? output : "", stderr: streams == .files ? errorOutput : "", milliseconds: milliseconds)
    }

    /// Waits until stdout has a complete line satisfying `predicate` (or the timeout passes, or the
    /// child exits without one); returns whether it has (`.files`).
    public func waitForLine(timeout: Double = 30, _ predicate: (String) -> Bool) -> Bool {
        wait(timeout: timeout) { completeLines.contains(where: predicate) }
    }

    /// Waits until stderr has a complete line satisfying `predicate`, as `waitForLine` does stdout (`.files`).
    public func waitForErrorLine(timeout: Double = 30, _ predicate: (String) -> Bool) -> Bool {
        wait(timeout: timeout) { Self.completeLines(errorOutput).contains(where: predicate) }
    }

    private func wait(timeout: Double, until found: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if found() { return true }
            if !process.isRunning { return found() }
            usleep(2_000)
        }
        return false
    }

    /// The complete, non-empty lines of `text` (what follows its last newline left out).
    private static func completeLines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast() // the text after the last newline: empty, or a partial line
        return lines.filter { !$0.isEmpty }
    }

    /// Sends one line to the child's standard input (`.conversation`).
    public func send(_ line: String) {
        precondition(streams == .conversation, "send(_:) needs a child started with streams: .conversation")
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Closes the child's standard input, which it reads as the end of the conversation (`.conversation`).
    public func closeInput() {
        precondition(streams == .conversation, "closeInput() needs a child started with streams: .conversation")
        try? input.fileHandleForWriting.close()
    }

    /// The next line the child printed, waiting for it; nil once it closed its output (`.conversation`).
    public func readLine() -> String? {
        precondition(streams == .conversation, "readLine() needs a child started with streams: .conversation")
        let fd = outputPipe.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Milliseconds since `start`.
    public static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
