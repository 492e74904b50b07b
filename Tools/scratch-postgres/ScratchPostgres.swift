import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server for tests, the stress test and the benchmark: `initdb` into a fresh
/// temporary directory, `postgres` listening on 127.0.0.1 at a free port and on a Unix socket in that
/// directory, password (SCRAM) logins only. PostgreSQL refuses to run as root: as root, the server runs
/// as the `postgres` system user (Debian's package creates it) and the directory is handed to it.
///
/// A server can serve TLS with certificates from `ScratchCertificates`, and can be the primary of a
/// streaming standby made with `pg_basebackup -R` (`makeStandby`), which `promote()` turns into a primary.
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
    /// The certificates the server presents, when it serves TLS.
    public let certificates: ScratchCertificates?
    private let bin: String
    private let durable: Bool
    private var server: Process?
    private var watchdog: Process?
    private let lock = NSLock()

    public enum StopMode: String, Sendable {
        /// Aborts open transactions, disconnects clients, shuts down cleanly (SIGINT).
        case fast
        /// Exits at once without a clean shutdown, like a crash (`pg_ctl stop -m immediate`: SIGQUIT);
        /// recovery runs at the next start.
        case immediate
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates the cluster and starts the server. `durable: false` turns fsync off (tests); the
    /// benchmark keeps PostgreSQL's defaults. With `tls`, the server accepts TLS connections (and
    /// plain ones: a client's `sslmode` decides) presenting those certificates.
    public convenience init(durable: Bool = false, tls: ScratchCertificates? = nil) throws {
        let bin = try Self.findBinaries()
        let directory = try ServerProcess.temporaryDirectory("concord-pg")
        let password = "pw-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let pwfile = directory + "/admin.pw"
        try password.write(toFile: pwfile, atomically: false, encoding: .utf8)
        try ServerProcess.handOver(pwfile)
        try ServerProcess.runToEnd(
            bin + "/initdb",
            [
                "-D", directory + "/data", "-U", "concord_admin", "--pwfile=" + pwfile,
                "--auth=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions"
            ],
            log: directory + "/initdb.log", directory: directory)
        try self.init(directory: directory, bin: bin, adminPassword: password, durable: durable, tls: tls)
    }

    /// Starts a server on a data directory that is ready (made by initdb or pg_basebackup).
    private init(directory: String, bin: String, adminPassword: String, durable: Bool, tls: ScratchCertificates?) throws {
        (self.directory, self.bin, self.adminPassword, self.durable, self.certificates) = (directory, bin, adminPassword, durable, tls)
        port = ServerProcess.freePort()
        if let tls {
            for (source, name) in [(tls.serverCertificate, "server.crt"), (tls.serverKey, "server.key")] {
                let target = directory + "/" + name
                try FileManager.default.copyItem(atPath: source, toPath: target)
                chmod(target, 0o600)
                try ServerProcess.handOver(target)
            }
        }
        watchdog = try ServerProcess.watchdog(
            """
            pid=$(head -n 1 '\(directory)/data/postmaster.pid' 2>/dev/null)
            [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
            for i in $(seq 1 100); do [ -f '\(directory)/data/postmaster.pid' ] || break; sleep 0.2; done
            rm -rf '\(directory)'
            """)
        for attempt in 0..<5 {
            do {
                try start()
                break
            } catch  where attempt < 4 && log.contains("could not bind") {
                port = ServerProcess.freePort()
            }
        }
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

    /// A libpq multi-host URI naming every server of `servers` in order, for `user` (the admin by
    /// default), that connects to whichever of them accepts writes (`target_session_attrs=read-write`).
    public static func multiHostURL(_ servers: [ScratchPostgres], database: String, user: String? = nil, password: String? = nil) -> String {
        let first = servers[0]
        let u = user ?? first.adminUser
        let p = user == nil ? first.adminPassword : password
        let hosts = servers.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
        return "postgresql://\(u)\(p.map { ":" + $0 } ?? "")@\(hosts)/\(database)?target_session_attrs=read-write&connect_timeout=5"
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
            if certificates != nil {
                args += ["-c", "ssl=on", "-c", "ssl_cert_file=\(directory)/server.crt", "-c", "ssl_key_file=\(directory)/server.key"]
            }
            server = try ServerProcess.run(bin + "/postgres", args, output: directory + "/server.log", append: true, directory: directory)
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
        guard let process = lock.withLock({ server }) else { return }
        ServerProcess.stop(process, signal: mode == .fast ? SIGINT : SIGQUIT)
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

    // MARK: - Replication

    /// A streaming-replication standby of this server: a base backup taken with `pg_basebackup -R`
    /// (which writes the standby's `primary_conninfo` and `standby.signal`), started on a port of its
    /// own, once it streams. With `synchronous`, this server then sets `synchronous_standby_names`, so
    /// a commit returns only once the standby has it; the call returns when the standby is synchronous.
    /// The standby is read-only until `promote()`.
    public func makeStandby(synchronous: Bool) throws -> ScratchPostgres {
        let directory = try ServerProcess.temporaryDirectory("concord-pg-standby")
        try ServerProcess.runToEnd(
            bin + "/pg_basebackup",
            ["-h", "127.0.0.1", "-p", String(port), "-U", adminUser, "-D", directory + "/data", "-R", "-X", "stream", "-c", "fast", "--no-sync"],
            log: directory + "/basebackup.log", directory: directory, environment: ["PGPASSWORD": adminPassword])
        let standby = try ScratchPostgres(directory: directory, bin: bin, adminPassword: adminPassword, durable: durable, tls: certificates)
        if synchronous {
            try psql(["ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()"])
        }
        let wanted = synchronous ? "sync" : "async"
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? psql(["SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'"]))?.contains(wanted) == true { return standby }
            usleep(50_000)
        }
        throw Failure(description: "the standby on port \(standby.port) did not become a \(wanted) standby: \(standby.log.suffix(2000))")
    }

    /// Turns this standby into a primary (`pg_promote`), returning once it accepts writes.
    public func promote() throws {
        let out = try psql(["SELECT pg_promote(true, 60)"])
        guard out.contains("t") else { throw Failure(description: "pg_promote did not finish: \(out) \(log.suffix(2000))") }
    }

    /// Whether the server is a primary (not in recovery).
    public var isPrimary: Bool { (try? psql(["SELECT pg_is_in_recovery()"]))?.trimmingCharacters(in: .whitespacesAndNewlines) == "f" }

    /// Runs `statements` as the admin through this server's socket with psql; returns what they printed.
    @discardableResult
    public func psql(_ statements: [String], database: String = "postgres") throws -> String {
        let output = directory + "/psql-\(UUID().uuidString.prefix(8)).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        var args = ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", String(port), "-U", adminUser, "-d", database]
        for s in statements { args += ["-c", s] }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin + "/psql")
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": adminPassword]) { _, new in new }
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        try p.run()
        try? handle.close()
        p.waitUntilExit()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard p.terminationStatus == 0 else { throw Failure(description: "psql failed: \(text.suffix(1000))") }
        return text
    }

    private static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for v in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/postgres") { return "\(root)/\(v)/bin" }
        throw Failure(description: "no PostgreSQL server under \(root) (apt-get install postgresql; Scripts/install-deps.sh does it)")
    }
}
