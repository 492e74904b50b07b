import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server for tests, the stress test and the benchmark: `initdb` into a fresh
/// temporary directory, `postgres` listening on 127.0.0.1 at a free port and on a Unix socket in that
/// directory, password (SCRAM) logins only. PostgreSQL refuses to run as root: as root, the server runs
/// as the `postgres` system user (Debian's package creates it) and the directory is handed to it.
///
/// ```swift
/// let server = try ScratchPostgres()
/// defer { server.destroy() }
/// let url = server.url(database: "postgres")   // postgresql://concord_admin:…@127.0.0.1:PORT/postgres
/// ```
public final class ScratchPostgres: @unchecked Sendable {
    public let directory: String
    /// The TCP port on 127.0.0.1 (picked at random; another is tried when it is taken).
    public private(set) var port: Int
    public let adminUser = "concord_admin"
    public let adminPassword: String
    private let bin: String
    private let durable: Bool
    private var server: Process?
    private var watchdog: Process?
    private let lock = NSLock()

    public enum StopMode: String, Sendable {
        /// Aborts open transactions, disconnects clients, shuts down cleanly (SIGINT).
        case fast
        /// Exits at once without a clean shutdown, like a crash; recovery runs at the next start (SIGQUIT).
        case immediate
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates the cluster and starts the server. `durable: false` turns fsync off (tests); the
    /// benchmark keeps PostgreSQL's defaults.
    public init(durable: Bool = false) throws {
        bin = try Self.findBinaries()
        self.durable = durable
        var template = Array((NSTemporaryDirectory() + "/concord-pg-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "cannot create a temporary directory for PostgreSQL") }
        directory = String(cString: made)
        adminPassword = "pw-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        port = Int.random(in: 20_000...60_000)
        let pwfile = directory + "/admin.pw"
        try adminPassword.write(toFile: pwfile, atomically: false, encoding: .utf8)
        try handOver(directory)
        try handOver(pwfile)
        let initdb = try runAsServerUser(
            bin + "/initdb",
            [
                "-D", directory + "/data", "-U", adminUser, "--pwfile=" + pwfile,
                "--auth=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions"
            ],
            output: directory + "/initdb.log")
        initdb.waitUntilExit()
        guard initdb.terminationStatus == 0 else {
            let log = (try? String(contentsOfFile: directory + "/initdb.log", encoding: .utf8)) ?? ""
            throw Failure(description: "initdb failed (exit \(initdb.terminationStatus)): \(log.suffix(2000))")
        }
        for attempt in 0..<5 {
            do {
                try start()
                break
            } catch  where attempt < 4 && log.contains("could not bind") {
                port = Int.random(in: 20_000...60_000)
            }
        }
        try startWatchdog()
    }

    /// A small shell loop that outlives a killed owner: once this process is gone (SIGKILL, a crash,
    /// an interrupted run), it stops the server and removes its directory, so no server is orphaned.
    private func startWatchdog() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        let data = directory + "/data"
        p.arguments = [
            "-c",
            """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            pid=$(head -n 1 '\(data)/postmaster.pid' 2>/dev/null)
            [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
            for i in $(seq 1 100); do [ -f '\(data)/postmaster.pid' ] || break; sleep 0.2; done
            rm -rf '\(directory)'
            """
        ]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        watchdog = p
    }

    deinit { destroy() }

    /// A libpq URI for `user` (the admin by default) over TCP.
    public func url(database: String = "postgres", user: String? = nil, password: String? = nil) -> String {
        let u = user ?? adminUser
        let p = user == nil ? adminPassword : password
        return "postgresql://\(u)\(p.map { ":" + $0 } ?? "")@127.0.0.1:\(port)/\(database)"
    }

    /// A libpq URI over the Unix socket in the server's directory.
    public func socketURL(database: String = "postgres", user: String? = nil, password: String? = nil) -> String {
        let u = user ?? adminUser
        let p = user == nil ? adminPassword : password
        return "postgresql://\(u)\(p.map { ":" + $0 } ?? "")@/\(database)?host=\(directory)&port=\(port)"
    }

    public var isRunning: Bool { lock.withLock { server?.isRunning ?? false } }

    /// Starts the server (again, after `stop`) and waits until it accepts connections.
    public func start() throws {
        try lock.withLock {
            guard server?.isRunning != true else { return }
            var args = [
                "-D", directory + "/data", "-k", directory, "-p", String(port), "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=300", "-c", "logging_collector=off"
            ]
            // fsync off survives a crash of the server (not of the machine): what tests and the stress test need.
            if !durable { args += ["-c", "fsync=off", "-c", "full_page_writes=off"] }
            server = try runAsServerUser(bin + "/postgres", args, output: directory + "/server.log", append: true)
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let check = Process()
            check.executableURL = URL(fileURLWithPath: bin + "/pg_isready")
            // Asked through this server's own socket: another server on the same TCP port cannot answer for it.
            check.arguments = ["-q", "-h", directory, "-p", String(port)]
            check.standardOutput = FileHandle.nullDevice
            check.standardError = FileHandle.nullDevice
            try check.run()
            check.waitUntilExit()
            if check.terminationStatus == 0 { return }
            guard isRunning else { break }
            usleep(50_000)
        }
        throw Failure(description: "PostgreSQL did not start: \(log.suffix(2000))")
    }

    /// Stops the server and waits for it to exit.
    public func stop(_ mode: StopMode = .fast) {
        let process: Process? = lock.withLock { server }
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, mode == .fast ? SIGINT : SIGQUIT)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Stops the server and removes its directory.
    public func destroy() {
        stop(.fast)
        if let watchdog, watchdog.isRunning { Glibc.kill(watchdog.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The server's log so far.
    public var log: String { (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "" }

    // MARK: - Dumps

    /// `pg_dump` of `database` (custom format) into `file`, as an operator takes a backup.
    public func dump(database: String, to file: String) throws {
        try runClient("pg_dump", ["--format=custom", "--file=" + file, url(database: database)])
    }

    /// Restores `database` from a `dump`: `pg_restore --clean` drops what it holds and recreates
    /// everything as it was when the dump was taken (the roles, which live outside any database, stay).
    public func restore(database: String, from file: String) throws {
        try runClient("pg_restore", ["--clean", "--if-exists", "--single-transaction", "--dbname=" + url(database: database), file])
    }

    /// Runs a PostgreSQL client program of this server's version to completion; throws with its output when it fails.
    private func runClient(_ name: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin + "/" + name)
        p.arguments = arguments
        let output = directory + "/\(name).log"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try? handle.close()
        guard p.terminationStatus == 0 else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw Failure(description: "\(name) failed (exit \(p.terminationStatus)): \(said.suffix(2000))")
        }
    }

    // MARK: - Processes

    private var asRoot: Bool { getuid() == 0 }

    /// Starts `executable` as the `postgres` user when running as root (setpriv execs in place, so the
    /// process signalled is the server itself), as this user otherwise.
    private func runAsServerUser(_ executable: String, _ arguments: [String], output: String, append: Bool = false) throws -> Process {
        let p = Process()
        if asRoot {
            p.executableURL = URL(fileURLWithPath: try Self.which("setpriv"))
            p.arguments = ["--reuid=postgres", "--regid=postgres", "--clear-groups", "--", executable] + arguments
        } else {
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = arguments
        }
        if !FileManager.default.fileExists(atPath: output) || !append { _ = FileManager.default.createFile(atPath: output, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        handle.seekToEndOfFile()
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        try p.run()
        return p
    }

    /// Gives `path` to the `postgres` user when running as root.
    private func handOver(_ path: String) throws {
        guard asRoot else { return }
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: try Self.which("chown"))
        chown.arguments = ["postgres:postgres", path]
        try chown.run()
        chown.waitUntilExit()
        guard chown.terminationStatus == 0 else {
            throw Failure(
                description:
                    "cannot give \(path) to the postgres user (running as root needs the 'postgres' system user: apt-get install postgresql creates it)")
        }
    }

    private static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for v in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/postgres") { return "\(root)/\(v)/bin" }
        throw Failure(description: "no PostgreSQL server under \(root) (apt-get install postgresql; Scripts/install-deps.sh does it)")
    }

    private static func which(_ name: String) throws -> String {
        for dir in ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + name) { return dir + "/" + name }
        throw Failure(description: "\(name) not found (util-linux)")
    }
}
