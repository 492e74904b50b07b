import CPostgres
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to a PostgreSQL server through libpq: parameterized statements (binary
/// parameters and results, never SQL built from data), transactions, and LISTEN/NOTIFY waits on
/// the connection's socket. The only place Concord touches libpq's pointers.
///
/// A connection belongs to one thread at a time (libpq's rule); open one per thread.
///
/// ```swift
/// let db = try PostgresConnection(ConnectionString("postgresql://alice@localhost/hub"))
/// let rows = try db.execute("SELECT last_seq FROM concord_hub.accounts WHERE name = $1", [.text("alice")])
/// ```
package final class PostgresConnection {
    private let handle: OpaquePointer
    package let connectionString: ConnectionString
    /// `user@host:port/database`, without the password.
    package let endpoint: String

    /// Connects (waiting at most 10 seconds unless the string sets `connect_timeout`, or at most
    /// `connectTimeout` seconds whatever it says); a server that cannot be reached or refuses the login
    /// is a `.connection` error.
    package init(_ connectionString: ConnectionString, connectTimeout: Int? = nil) throws(PostgresError) {
        self.connectionString = connectionString
        try Self.validate(connectionString)
        // Keywords before dbname are defaults the string may override; those after it override the string.
        var keywords = ["connect_timeout", "fallback_application_name", "dbname"]
        var values = ["10", "concord", connectionString.raw]
        if let connectTimeout {
            keywords.append("connect_timeout")
            values.append(String(max(2, connectTimeout)))
        }
        let conn: OpaquePointer? = withCStrings(keywords) { k in
            withCStrings(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let conn else {
            throw PostgresError(.connection, message: "libpq could not allocate a connection", operation: "connect to \(connectionString)")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = connectionString.scrub(String(cString: PQerrorMessage(conn)))
            PQfinish(conn)
            throw PostgresError(.connection, message: message, operation: "connect to \(connectionString)")
        }
        // The server's notices (NOTICE: … already exists, skipping) are not errors: libpq's default
        // processor would print them on stderr, breaking a command's one-line output.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        handle = conn
        let host = String(cString: PQhost(conn))
        endpoint =
            "\(String(cString: PQuser(conn)))@\(host.hasPrefix("/") ? "[\(host)]" : host):\(String(cString: PQport(conn)))/\(String(cString: PQdb(conn)))"
    }

    deinit { PQfinish(handle) }

    /// Parses the string as libpq would, without connecting: a malformed one is a `.malformedConnectionString` error.
    package static func validate(_ connectionString: ConnectionString) throws(PostgresError) {
        guard !connectionString.raw.isEmpty else { return }
        var message: UnsafeMutablePointer<CChar>?
        let options = PQconninfoParse(connectionString.raw, &message)
        defer {
            if let options { PQconninfoFree(options) }
            if let message { PQfreemem(message) }
        }
        guard var option = options else {
            let reason = message.map { connectionString.scrub(String(cString: $0)) } ?? "libpq could not parse it"
            throw PostgresError(.malformedConnectionString, message: reason, operation: "read the connection string \(connectionString)")
        }
        // libpq checks these values only when it connects, and reports them as a failed connection.
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val, let allowed = Self.enumerated[String(cString: keyword)], !allowed.contains(String(cString: value)) {
                throw PostgresError(
                    .malformedConnectionString,
                    message: "\(String(cString: keyword))=\(connectionString.scrub(String(cString: value))) is not one of \(allowed.joined(separator: ", "))",
                    operation: "read the connection string \(connectionString)")
            }
            option += 1
        }
    }

    /// The options whose values libpq takes from a fixed list.
    private static let enumerated: [String: [String]] = [
        "sslmode": ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"],
        "gssencmode": ["disable", "prefer", "require"],
        "channel_binding": ["disable", "prefer", "require"]
    ]

    /// The role this connection logged in as.
    package var user: String { String(cString: PQuser(handle)) }

    /// The server process serving this connection (for `pg_terminate_backend` in tests).
    package var backendPID: Int32 { PQbackendPID(handle) }

    /// False once the connection broke (the server stopped, the network was cut).
    package var isAlive: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, … and returns its rows.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgresValue] = [], operation: String? = nil) throws(PostgresError) -> PostgresRows {
        let encoded = parameters.map(\.binary)
        let types = parameters.map { Oid($0.oid) }
        let lengths = encoded.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // libpq reads the parameter bytes during the call only: copy them into C buffers for its duration.
        let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { bytes in
            guard let bytes else { return nil }
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBufferPointer { src in
                src.withMemoryRebound(to: CChar.self) { if let base = $0.baseAddress { p.initialize(from: base, count: bytes.count) } }
            }
            return p
        }
        defer { for p in buffers { p?.deallocate() } }
        let values = buffers.map { UnsafePointer($0) }
        let result = PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        defer { PQclear(result) }
        return try rows(of: result, operation: operation ?? Self.firstWords(sql))
    }

    /// Runs one statement without parameters, waiting at most `seconds` for its result; a server that
    /// has not answered by then is a `.connectionLost` error, after which the connection is unusable.
    package func execute(_ sql: String, within seconds: Double) throws(PostgresError) -> PostgresRows {
        guard PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 1) == 1 else { throw lost(Self.firstWords(sql)) }
        let deadline = Date().addingTimeInterval(seconds)
        var last: OpaquePointer?
        defer { if let last { PQclear(last) } }
        while true {
            guard PQconsumeInput(handle) == 1 else { throw lost(Self.firstWords(sql)) }
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else { return try rows(of: last, operation: Self.firstWords(sql)) }
                if let last { PQclear(last) }
                last = result
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else {
                throw PostgresError(.connectionLost, message: "no answer within \(seconds) s", operation: Self.firstWords(sql))
            }
            var fds = [pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, Int32(left * 1000) + 1)
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    package func transaction<R>(_ mode: TransactionMode = .readWrite, _ body: () throws -> R) throws -> R {
        try execute(mode.begin)
        let value: R
        do { value = try body() } catch {
            if isAlive { _ = try? execute("ROLLBACK") }
            throw error
        }
        try execute("COMMIT")
        return value
    }

    package enum TransactionMode: Sendable {
        case readWrite
        /// One snapshot for every statement (REPEATABLE READ), read only.
        case snapshot

        var begin: String {
            switch self {
            case .readWrite: "BEGIN"
            case .snapshot: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            }
        }
    }

    /// A notification received on a channel this connection LISTENs on.
    package struct Notification: Sendable, Equatable {
        package let channel: String
        package let payload: String
        package let senderPID: Int32
    }

    /// Waits until a notification arrives, `wakeDescriptor` (if any) becomes readable, or `timeout`
    /// seconds pass, then returns the notifications that arrived (empty on timeout or wake) and whether
    /// the descriptor woke it. Waits on the connection's socket with `poll`: no busy polling.
    package func waitForNotifications(timeout: Double, wakeDescriptor: Int32? = nil) throws(PostgresError) -> (notifications: [Notification], woken: Bool) {
        let queued = try drainNotifications()
        if !queued.isEmpty { return (queued, false) }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw lost("wait for notifications") }
        var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeDescriptor ?? -1, events: Int16(POLLIN), revents: 0)]
        let n = poll(&fds, 2, Int32(max(0, min(timeout, 86_400)) * 1000))
        if n < 0 && errno != EINTR {
            throw PostgresError(.connectionLost, message: String(cString: strerror(errno)), operation: "wait for notifications")
        }
        let woken = n > 0 && fds[1].revents != 0
        let arrived = n > 0 && fds[0].revents != 0 ? try drainNotifications() : []
        return (arrived, woken)
    }

    /// Reads what the socket holds and returns the notifications queued so far.
    private func drainNotifications() throws(PostgresError) -> [Notification] {
        guard PQconsumeInput(handle) == 1 else { throw lost("read notifications") }
        var out: [Notification] = []
        while let n = PQnotifies(handle) {
            out.append(
                Notification(
                    channel: String(cString: n.pointee.relname), payload: String(cString: n.pointee.extra),
                    senderPID: n.pointee.be_pid))
            PQfreemem(n)
        }
        guard isAlive else { throw lost("read notifications") }
        return out
    }

    /// libpq's client-side SCRAM-SHA-256 verifier for `password`, so a new role's password never
    /// travels to the server (or its logs) in clear.
    package func encryptPassword(_ password: String, user: String) throws(PostgresError) -> String {
        guard let p = PQencryptPasswordConn(handle, password, user, "scram-sha-256") else {
            throw PostgresError(.statement, message: String(cString: PQerrorMessage(handle)), operation: "encrypt a password")
        }
        defer { PQfreemem(p) }
        return String(cString: p)
    }

    private func lost(_ operation: String) -> PostgresError {
        PostgresError(.connectionLost, message: connectionString.scrub(String(cString: PQerrorMessage(handle))), operation: operation)
    }

    private func rows(of result: OpaquePointer?, operation: String) throws(PostgresError) -> PostgresRows {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            func field(_ code: Character) -> String? {
                result.flatMap { PQresultErrorField($0, Int32(code.asciiValue!)) }.map { String(cString: $0) }
            }
            let sqlState = field("C")
            // The primary message, its detail and hint; never the context, which can quote the
            // statement that failed (and with it a password's verifier).
            let message = field("M").map { primary in
                primary + (field("D").map { " (\($0))" } ?? "") + (field("H").map { "; hint: \($0)" } ?? "")
            }
            let text = connectionString.scrub(message ?? String(cString: PQerrorMessage(handle)))
            let detail = field("D")
            let kind: PostgresError.Kind = isAlive && sqlState != nil ? .statement : .connectionLost
            throw PostgresError(kind, sqlState: sqlState, message: text, operation: operation, detail: detail)
        }
        guard let result else { throw lost(operation) }
        let (rowCount, columnCount) = (Int(PQntuples(result)), Int(PQnfields(result)))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var rows: [[[UInt8]?]] = []
        rows.reserveCapacity(rowCount)
        for r in 0..<Int32(rowCount) {
            var fields: [[UInt8]?] = []
            fields.reserveCapacity(columnCount)
            for c in 0..<Int32(columnCount) {
                if PQgetisnull(result, r, c) == 1 {
                    fields.append(nil)
                    continue
                }
                let length = Int(PQgetlength(result, r, c))
                let value = PQgetvalue(result, r, c)!
                fields.append(value.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) })
            }
            rows.append(fields)
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? rowCount
        return PostgresRows(columns: columns, rows: rows, affected: affected)
    }

    private static func firstWords(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).prefix(3).joined(separator: " ")
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for p in copies { free(p) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
