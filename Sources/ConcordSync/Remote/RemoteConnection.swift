import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How to reach a remote replica: the ssh command and the program run on the far side.
///
/// ```swift
/// var options = RemoteOptions()
/// options.rsh = "ssh -p 2222 -i ~/.ssh/sync_key"
/// options.remoteCommand = "/usr/local/bin/sync-tool"
/// ```
public struct RemoteOptions: Sendable, Equatable {
    /// The command that opens the connection, with its options (as rsync's `-e`); the destination
    /// and the remote command are appended. The default is `ssh`.
    public var rsh = "ssh"
    /// The program run on the far side as `PROGRAM serve PATH`. The default is `sync-tool`.
    public var remoteCommand = "sync-tool"
    /// Create the remote replica's directory when it is missing (otherwise that is an error).
    public var create = false
    /// How long a silence (mid-exchange) may last before the session fails. The default is 60 seconds.
    public var timeout: Duration = .seconds(60)

    /// The default options: `ssh`, `sync-tool` on the far side, no directory created, 60 s of silence.
    public init() {}
}

/// A running connection to a remote replica: the ssh child (`ssh [user@]host sync-tool serve PATH`)
/// whose standard input and output carry the session. Its standard error is kept, so a failed
/// login or an unreachable host is reported in ssh's own words.
///
/// ```swift
/// let connection = try RemoteConnection.open(try RemoteAddress.parse("desktop:settings"), options: RemoteOptions())
/// defer { connection.close() }
/// let session = try SyncSession(store: laptop, channel: connection.channel)
/// ```
package final class RemoteConnection: @unchecked Sendable {
    package let address: RemoteAddress
    package let channel: SyncChannel
    private let process: Process
    private let toChild: FileHandle
    private let fromChild: FileHandle
    private let diagnostics: Diagnostics

    /// The command line run, for messages: ssh's words, the destination and the remote command.
    package let commandLine: [String]

    package static func open(
        _ address: RemoteAddress, options: RemoteOptions, suites: SyncSelection = .all,
        readOnly: Bool = false
    ) throws -> RemoteConnection {
        var words = try ShellWords.split(options.rsh)
        guard !words.isEmpty else { throw ConcordError.session(.refusedByPeer, "--rsh is empty: give the ssh command, e.g. \"ssh -p 2222\"") }
        if let port = address.port { words += ["-p", String(port)] }
        var remote = [options.remoteCommand, "serve", address.path]
        for suite in suites.suites ?? [] { remote += ["--suite", suite] }
        if options.create { remote.append("--create") }
        if readOnly { remote.append("--read-only") }
        remote += ["--timeout", String(options.timeout.inSeconds)]
        words += [address.destination, remote.map(ShellWords.quote).joined(separator: " ")]
        return try RemoteConnection(address: address, words: words, timeout: options.timeout.inSeconds)
    }

    private init(address: RemoteAddress, words: [String], timeout: Double) throws {
        self.address = address
        commandLine = words
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process = Process()
        // Through a shell that outlives ssh's start: ssh closes every inherited descriptor, including
        // the one Foundation watches to learn that a child exited, and Foundation would then block
        // waiting for this ssh (and notice no other child's exit until it ends). The shell keeps it
        // open, runs ssh (found on PATH) and exits with ssh's status.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\"$@\"; exit $?", "sh"] + words
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            throw ConcordError.session(.unreachable, "cannot start '\(words[0])' to reach \(address.host): \(error)")
        }
        toChild = input.fileHandleForWriting
        fromChild = output.fileHandleForReading
        diagnostics = Diagnostics(errors.fileHandleForReading)
        channel = SyncChannel(input: fromChild.fileDescriptor, output: toChild.fileDescriptor, timeout: timeout)
        let (process, diagnostics, host, program) = (process, diagnostics, address.host, words[0])
        channel.describeFailure = { what in
            // Give the child a moment to exit and say why.
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning && Date() < deadline { usleep(2_000) }
            usleep(50_000) // the diagnostics thread reads what the child wrote last
            let said = diagnostics.lastLines()
            let status = process.isRunning ? "" : " (\(program) exited with status \(process.terminationStatus))"
            let refused = said.contains("Permission denied") || said.contains("Authentication failed") || said.contains("Too many authentication failures")
            let reason = refused ? "the login to \(host) was refused" : (said.isEmpty ? "the connection to \(host) dropped" : "cannot reach \(host)")
            return ConcordError.session(.unreachable, "\(reason): \(what)\(status)\(said.isEmpty ? "" : ": " + said)")
        }
    }

    /// Closes the session: the far side sees the end of its input and exits; a child that does not
    /// within two seconds is terminated.
    package func close() {
        try? toChild.close()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? fromChild.close()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// The child's process id (the local ssh).
    package var pid: Int32 { process.processIdentifier }
}

/// Collects what a child writes to standard error (the last 4 KiB), on a thread of its own so the
/// child never blocks on a full pipe.
private final class Diagnostics: Sendable {
    private let text = Mutex<[UInt8]>([])

    init(_ handle: FileHandle) {
        let fd = handle.fileDescriptor
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(fd, &chunk, chunk.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                self.text.withLock { t in
                    t.append(contentsOf: chunk[..<n])
                    if t.count > 4096 { t.removeFirst(t.count - 4096) }
                }
            }
            _ = handle // keeps the descriptor open while the thread reads it
        }
        thread.start()
    }

    /// The child's last diagnostic lines, joined on one line.
    func lastLines() -> String {
        let all = String(decoding: text.withLock { $0 }, as: UTF8.self)
        let lines = all.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.suffix(3).joined(separator: "; ")
    }
}
