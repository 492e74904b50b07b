import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the scratch servers (PostgreSQL, PgBouncer) share: running a program as the `postgres`
/// system user when this process is root (both refuse to run as root), handing files to that user,
/// temporary directories, free ports, and a watchdog that cleans up after a killed owner.
enum ServerProcess {
    static var asRoot: Bool { getuid() == 0 }

    /// Starts `executable` as the `postgres` user when running as root (setpriv execs in place, so the
    /// process signalled is the program itself), as this user otherwise; its output goes to `output`.
    static func run(
        _ executable: String, _ arguments: [String], output: String, append: Bool = false, directory: String,
        environment: [String: String] = [:]
    ) throws -> Process {
        let p = Process()
        if asRoot {
            p.executableURL = URL(fileURLWithPath: try which("setpriv"))
            p.arguments = ["--reuid=postgres", "--regid=postgres", "--clear-groups", "--", executable] + arguments
        } else {
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = arguments
        }
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        if !FileManager.default.fileExists(atPath: output) || !append { _ = FileManager.default.createFile(atPath: output, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        handle.seekToEndOfFile()
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        try p.run()
        try? handle.close()
        return p
    }

    /// Runs `executable` to the end (as the server user when root); throws with its output when it fails.
    static func runToEnd(_ executable: String, _ arguments: [String], log: String, directory: String, environment: [String: String] = [:]) throws {
        let p = try run(executable, arguments, output: log, directory: directory, environment: environment)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ScratchPostgres.Failure(
                description: "\((executable as NSString).lastPathComponent) failed (exit \(p.terminationStatus)): \(text.suffix(2000))")
        }
    }

    /// Gives `path` to the `postgres` user when running as root.
    static func handOver(_ path: String) throws {
        guard asRoot else { return }
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: try which("chown"))
        chown.arguments = ["postgres:postgres", path]
        try chown.run()
        chown.waitUntilExit()
        guard chown.terminationStatus == 0 else {
            throw ScratchPostgres.Failure(
                description:
                    "cannot give \(path) to the postgres user (running as root needs the 'postgres' system user: apt-get install postgresql creates it)")
        }
    }

    /// A new directory under the temporary directory, named `prefix-XXXXXX`, handed to the server user.
    static func temporaryDirectory(_ prefix: String) throws -> String {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ScratchPostgres.Failure(description: "cannot create a temporary directory for \(prefix)") }
        let directory = String(cString: made)
        try handOver(directory)
        return directory
    }

    /// A TCP port on 127.0.0.1 nobody listens on now (the kernel's choice); a server started on it may
    /// still lose a race, so callers retry with another when the bind fails.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return Int.random(in: 20_000...60_000) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return Int.random(in: 20_000...60_000) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A small shell loop that outlives a killed owner: once this process is gone (SIGKILL, a crash, an
    /// interrupted run), it runs `cleanup` (stop the server, remove its directory), so nothing is orphaned.
    static func watchdog(_ cleanup: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done\n" + cleanup]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Signals `process` and waits (at most 30 s, then SIGKILL) until it has exited.
    static func stop(_ process: Process, signal: Int32) {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    static func which(_ name: String) throws -> String {
        for dir in ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + name) { return dir + "/" + name }
        throw ScratchPostgres.Failure(description: "\(name) not found")
    }
}
