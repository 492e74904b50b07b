import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PgBouncer (Debian's `pgbouncer`) in front of a `ScratchPostgres`, on 127.0.0.1 at a
/// port of its own: every database of the server, SCRAM logins checked against the server's own
/// verifiers (`auth_query` as the server's admin) and passed through to it, `poolSize` server
/// connections per database and role, in `mode`.
///
/// ```swift
/// let pooler = try ScratchPgBouncer(server, mode: .transaction, poolSize: 2)
/// defer { pooler.destroy() }
/// let url = pooler.url(database: "hub", user: "alice", password: pw)
/// ```
public final class ScratchPgBouncer: @unchecked Sendable {
    /// PgBouncer's pool modes.
    public enum Mode: String, Sendable {
        /// A client holds a server connection for its whole session (LISTEN works).
        case session
        /// A client holds a server connection only while a transaction runs.
        case transaction
    }

    public let directory: String
    public private(set) var port: Int
    public let mode: Mode
    public let poolSize: Int
    private let server: ScratchPostgres
    private var process: Process?
    private var watchdog: Process?

    public init(_ server: ScratchPostgres, mode: Mode, poolSize: Int, maxClientConnections: Int = 200) throws {
        let binary = "/usr/sbin/pgbouncer"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ScratchPostgres.Failure(description: "no \(binary) (apt-get install pgbouncer; Scripts/install-deps.sh does it)")
        }
        (self.server, self.mode, self.poolSize) = (server, mode, poolSize)
        directory = try ServerProcess.temporaryDirectory("concord-pgbouncer")
        port = ServerProcess.freePort()
        let users = directory + "/userlist.txt"
        try "\"\(server.adminUser)\" \"\(server.adminPassword)\"\n".write(toFile: users, atomically: false, encoding: .utf8)
        chmod(users, 0o600)
        try ServerProcess.handOver(users)
        watchdog = try ServerProcess.watchdog(
            """
            pid=$(cat '\(directory)/pgbouncer.pid' 2>/dev/null)
            [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
            sleep 1
            rm -rf '\(directory)'
            """)
        for attempt in 0..<5 {
            do {
                try start(binary, maxClientConnections: maxClientConnections)
                return
            } catch  where attempt < 4 && log.contains("bind") {
                port = ServerProcess.freePort()
            }
        }
    }

    deinit { destroy() }

    /// A libpq URI for `user` (the server's admin by default) through the pooler.
    public func url(database: String = "postgres", user: String? = nil, password: String? = nil) -> String {
        let u = user ?? server.adminUser
        let p = user == nil ? server.adminPassword : password
        return "postgresql://\(u)\(p.map { ":" + $0 } ?? "")@127.0.0.1:\(port)/\(database)"
    }

    /// The pooler's log so far.
    public var log: String { (try? String(contentsOfFile: directory + "/pgbouncer.out", encoding: .utf8)) ?? "" }

    /// Stops the pooler and removes its directory.
    public func destroy() {
        if let process { ServerProcess.stop(process, signal: SIGINT) }
        if let watchdog, watchdog.isRunning { Glibc.kill(watchdog.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func start(_ binary: String, maxClientConnections: Int) throws {
        let ini = directory + "/pgbouncer.ini"
        try """
        [databases]
        * = host=127.0.0.1 port=\(server.port)
        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = \(port)
        unix_socket_dir =
        auth_type = scram-sha-256
        auth_file = \(directory)/userlist.txt
        auth_user = \(server.adminUser)
        auth_query = SELECT usename, passwd FROM pg_shadow WHERE usename = $1
        pool_mode = \(mode.rawValue)
        default_pool_size = \(poolSize)
        max_client_conn = \(maxClientConnections)
        pidfile = \(directory)/pgbouncer.pid
        """.write(toFile: ini, atomically: false, encoding: .utf8)
        try ServerProcess.handOver(ini)
        if let process, process.isRunning { ServerProcess.stop(process, signal: SIGINT) }
        let p = try ServerProcess.run(binary, [ini], output: directory + "/pgbouncer.out", directory: directory)
        process = p
        // Ready once it accepts TCP connections on its port.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard p.isRunning else { break }
            if Self.accepts(port) { return }
            usleep(20_000)
        }
        throw ScratchPostgres.Failure(description: "pgbouncer did not start: \(log.suffix(1500))")
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
