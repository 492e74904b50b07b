import ChildProcesses
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The bench binary itself, started in a hidden child role (`bench --child ROLE ARGS…`), talking over
/// its standard input and output. Its standard error is ours, so a child's error message reaches the
/// person running the benchmark.
extension ChildProcess {
    convenience init(role: String, _ arguments: [String]) throws {
        do { try self.init(Self.benchPath, ["--child", role] + arguments, streams: .conversation) } catch {
            throw BenchError("cannot start the child role \(role) (\(Self.benchPath)): \(error)")
        }
    }

    /// This binary's path, so children run exactly the same build.
    static let benchPath: String = {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        return n > 0 ? String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }()

    /// The role it was started in.
    var role: String { process.arguments?.dropFirst().first ?? "?" }

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
        closeInput()
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
