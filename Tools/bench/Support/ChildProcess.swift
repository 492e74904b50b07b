import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The bench binary itself, started in a hidden child role (`bench --child ROLE ARGS…`), with a
/// pipe to its standard input and one from its standard output. Its standard error is ours, so a
/// child's error message reaches the person running the benchmark.
final class ChildProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    let role: String

    init(role: String, _ arguments: [String]) throws {
        self.role = role
        process.executableURL = URL(fileURLWithPath: Self.executablePath)
        process.arguments = ["--child", role] + arguments
        process.standardInput = input
        process.standardOutput = output
        do { try process.run() } catch {
            throw BenchError("cannot start the child role \(role) (\(Self.executablePath)): \(error)")
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// This binary's path, so children run exactly the same build.
    static let executablePath: String = {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        return n > 0 ? String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }()

    /// Sends one line to the child's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next line the child printed; `nil` when it closed its output.
    func readLine() -> String? {
        let fd = output.fileHandleForReading.fileDescriptor
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

    /// Reads lines until one starts with `prefix`; returns the rest of that line.
    func expect(_ prefix: String) throws -> String {
        while let line = readLine() {
            if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) }
        }
        try finish()
        throw BenchError("child role \(role) ended without printing '\(prefix)'")
    }

    /// Waits for the child to exit; throws when it failed.
    func finish() throws {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError("child role \(role) failed (status \(process.terminationStatus); its message is above)")
        }
    }
}

/// The child's side of the conversation: lines to the parent, and waiting for its signal.
enum ParentLink {
    /// Writes one line to standard output at once.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Says `ready` and blocks until the parent sends a line (its "go").
    static func waitForGo() throws {
        say("ready")
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { throw BenchError("the parent closed the pipe before saying go") }
            if byte == UInt8(ascii: "\n") { return }
        }
    }
}
