import Concord

/// A device's connection to one account on a PostgreSQL hub. The hub is a peer like any other
/// replica: it has a replica id of its own (one per hub and account), so peer cursors, conflict
/// rules and re-journaling work as they do between two directories.
///
/// The account is the role the connection string logs in as (row-level security shows a role its
/// own rows only); asking for another account is an error, never another account's data.
///
/// ```swift
/// let hub = try Hub("postgresql://alice@db.example.com/settings")   // password from ~/.pgpass or PGPASSWORD
/// let report = try HubSynchronizer().sync(store, hub)
/// print(report.aToB.newEntries, "pushed,", report.bToA.recordsChanged, "pulled")
/// ```
public final class Hub {
    /// Where the hub is; printing it never shows the password.
    package let connectionString: ConnectionString
    /// The account (a PostgreSQL role) whose rows this connection reads and writes.
    public let account: String
    /// The hub's replica id for this account: devices keep their cursors on it.
    public let replicaID: ReplicaID
    /// The NOTIFY channel pushes to this account announce themselves on: a secret of the account's
    /// row (`concord_` and 32 random hex digits), so no other account can LISTEN or NOTIFY on it.
    let channel: String
    package let db: PostgresConnection

    /// Connects to the hub at `url` (a libpq URI or `key=value` string; empty: the `PG*` environment
    /// variables). `account` defaults to the login role.
    ///
    /// ```swift
    /// let hub = try Hub("postgresql://alice@db.example.com/settings?sslmode=verify-full")
    /// ```
    ///
    /// - Parameters:
    ///   - url: Where the hub is, and how to log in (the password from `~/.pgpass` or `PGPASSWORD` if not in it).
    ///   - account: The account to sync; the default is the login role's own.
    /// - Throws: ``ConcordError`` `.postgres` when the server cannot be reached or refuses the login,
    ///   `.notInitialized` when the database holds no hub, `.newerSchema`, or `.accountNotVisible`.
    public convenience init(_ url: String, account: String? = nil) throws {
        let db = try ConcordError.fromPostgres { try PostgresConnection(ConnectionString(url)) }
        try self.init(connection: db, account: account)
    }

    /// A hub session over an open connection (whose current role decides what row-level security shows).
    package init(connection db: PostgresConnection, account: String? = nil) throws {
        let role = try ConcordError.fromPostgres { try db.execute("SELECT current_user::text").text(0, 0) }
        let account = account ?? role
        try ConcordError.fromPostgres { try HubSchema.check(on: db) }
        let rows = try ConcordError.fromPostgres {
            try db.execute("SELECT hub_replica, channel FROM concord_hub.accounts WHERE name = $1", [.text(account)], operation: "find account")
        }
        guard rows.count == 1 else { throw ConcordError.accountNotVisible(account: account, role: role) }
        guard let id = ReplicaID(bytes: try ConcordError.fromPostgres { try rows.bytes(0, 0) }) else {
            throw ConcordError.damagedRow("account \(account) has a hub replica id that is not 16 bytes")
        }
        let channel = try ConcordError.fromPostgres { try rows.text(0, 1) }
        guard channel.hasPrefix("concord_"), channel.utf8.count <= 63,
            channel.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7a) })
        else { throw ConcordError.damagedRow("account \(account) has a notification channel that is not concord_ and hex digits") }
        (self.connectionString, self.db, self.account, self.channel) = (db.connectionString, db, account, channel)
        replicaID = id
    }

    /// `user@host:port/database` (never the password).
    public var endpoint: String { db.endpoint }

    /// What the hub has merged of `device`'s journal, per scope (`PeerKnowledge` items about `device`):
    /// each cursor bound to the device's mark it was pushed with; an unbound one claims nothing.
    func knowledge(of device: ReplicaID) throws -> PeerKnowledge {
        try deviceCursors(device).knowledge
    }

    /// The hub's cursors on `device`: what they claim, whether any predates marks or was reset, and
    /// which may leave the device's own pushes out of a pull.
    func deviceCursors(_ device: ReplicaID) throws -> HubDeviceCursors {
        let rows = try ConcordError.fromPostgres {
            try db.execute(
                "SELECT scope, pushed, mark, mark_seq, echo_safe, found_restored, hub_mark, since FROM concord_hub.devices WHERE account = $1 AND device = $2",
                [.text(account), .bytea(device.bytes)], operation: "read the device's cursor")
        }
        var out = HubDeviceCursors()
        var items: [PeerKnowledge.Item] = []
        for row in 0..<rows.count {
            try ConcordError.fromPostgres {
                let name = try rows.text(row, 0)
                let scope: SyncScope = name.isEmpty ? .allSuites : .suite(name)
                let pushed = UInt64(max(0, try rows.int64(row, 1)))
                var mark: HistoryMark?
                if let id = rows.optionalBytes(row, 2) {
                    guard let bound = HistoryMark(id: id, seq: UInt64(max(0, try rows.int64(row, 3)))) else {
                        throw ConcordError.damagedRow("the hub's cursor on device \(device) has a mark of \(id.count) bytes")
                    }
                    mark = bound
                }
                items.append(.init(replica: device, scope: scope, seq: mark == nil ? 0 : pushed, mark: mark))
                if mark == nil && pushed > 0 { out.predatesMarks = true }
                if try rows.bool(row, 4) { out.echoSafe.insert(scope) }
                if try rows.bool(row, 5) { out.reset.insert(scope) }
                if let id = rows.optionalBytes(row, 6) { out.hubMark = id }
                out.since[scope] = UInt64(max(0, try rows.int64(row, 7)))
            }
        }
        out.knowledge = PeerKnowledge(items: items)
        return out
    }

    /// The account's last seq, its newest history mark, and the highest seq of a mark it pruned.
    func accountHistory() throws -> (lastSeq: UInt64, mark: HistoryMark?, prunedThrough: UInt64) {
        try ConcordError.fromPostgres {
            let rows = try db.execute(
                "SELECT last_seq, mark, marks_pruned FROM concord_hub.accounts WHERE name = $1", [.text(account)], operation: "read the account")
            guard rows.count == 1 else { throw ConcordError.accountNotVisible(account: account, role: db.user) }
            return try Self.history(rows, 0)
        }
    }

    /// Columns last_seq, mark, marks_pruned of an accounts row.
    static func history(_ rows: PostgresRows, _ row: Int, from c: Int = 0) throws -> (lastSeq: UInt64, mark: HistoryMark?, prunedThrough: UInt64) {
        let last = UInt64(max(0, try rows.int64(row, c)))
        let mark = try rows.optionalBytes(row, c + 1).map { id in
            guard let mark = HistoryMark(id: id, seq: last) else { throw ConcordError.damagedRow("the account's history mark is \(id.count) bytes") }
            return mark
        }
        return (last, mark, UInt64(max(0, try rows.int64(row, c + 2))))
    }

    /// Of `marks` (what a device's cursors on the hub are bound to), those the account holds, each
    /// with the seq it was written at.
    func marks(_ marks: [HistoryMark]) throws -> [[UInt8]: UInt64] {
        guard !marks.isEmpty else { return [:] }
        let rows = try ConcordError.fromPostgres {
            try db.execute(
                "SELECT mark, seq FROM concord_hub.marks WHERE account = $1 AND mark = ANY($2::bytea[])",
                [.text(account), .byteaArray(marks.map(\.id))], operation: "look up the device's marks of the hub")
        }
        var out: [[UInt8]: UInt64] = [:]
        for row in 0..<rows.count {
            try ConcordError.fromPostgres { out[try rows.bytes(row, 0)] = UInt64(max(0, try rows.int64(row, 1))) }
        }
        return out
    }

    /// Resets the hub's cursors on `device`, which was found restored from an earlier state: nothing
    /// merged of it, none of its pushes left out of a pull until it is known to have merged the hub's
    /// history through the account's last seq now.
    func resetCursors(on device: ReplicaID) throws {
        try ConcordError.fromPostgres {
            try db.execute(
                """
                UPDATE concord_hub.devices SET pushed = 0, mark = NULL, mark_seq = NULL, echo_safe = false, found_restored = true,
                  since = (SELECT last_seq FROM concord_hub.accounts WHERE name = $1)
                WHERE account = $1 AND device = $2
                """, [.text(account), .bytea(device.bytes)], operation: "reset the hub's cursor on a restored device")
        }
    }

    /// After a pull: `device` has merged the hub's history through `seq`, as its `mark` holds it, and
    /// holds the hub's mark `hubMark`. A cursor waiting for that proof (and past its `since`) may leave
    /// the device's pushes out of pulls again and is bound to `mark`; every cursor records `hubMark`.
    func recordPull(by device: ReplicaID, scopes: [SyncScope], through seq: UInt64, mark: HistoryMark, hubMark: HistoryMark?) throws {
        try ConcordError.fromPostgres {
            try db.execute(
                """
                UPDATE concord_hub.devices SET
                  echo_safe = echo_safe OR since <= $4,
                  mark = CASE WHEN (echo_safe OR since <= $4) AND mark IS NOT NULL AND $6 >= pushed AND $6 >= mark_seq THEN $5 ELSE mark END,
                  mark_seq = CASE WHEN (echo_safe OR since <= $4) AND mark IS NOT NULL AND $6 >= pushed AND $6 >= mark_seq THEN $6 ELSE mark_seq END,
                  hub_mark = coalesce($7, hub_mark)
                WHERE account = $1 AND device = $2 AND scope = ANY($3::text[])
                """,
                [
                    .text(account), .bytea(device.bytes), .textArray(scopes.map(\.hubColumn)), .int8(Int64(clamping: seq)),
                    .bytea(mark.id), .int8(Int64(clamping: mark.seq)), hubMark.map { .bytea($0.id) } ?? .null
                ], operation: "record what the device pulled")
        }
    }
}

/// The hub's cursors on one device (see `Hub.deviceCursors`).
struct HubDeviceCursors {
    /// What they claim about the device's history: bound cursors with the device's marks.
    var knowledge = PeerKnowledge.none
    /// A cursor claims something without a mark (written before hub schema 4).
    var predatesMarks = false
    /// The scopes whose cursor may leave every one of the device's own pushes out of a pull.
    var echoSafe: Set<SyncScope> = []
    /// Per scope, the account's last seq when the cursor was created or reset: the device's pushes
    /// after it may be left out of a pull even before the cursor is echo-safe.
    var since: [SyncScope: UInt64] = [:]
    /// The scopes whose cursor was reset when the device was found restored, and not bound since.
    var reset: Set<SyncScope> = []
    /// The id of the hub's mark the hub last recorded the device holds (kept from pruning).
    var hubMark: [UInt8]?

    /// Whether a pull for `selection` may leave out the device's own push at `seq`: the device provably
    /// holds it (see `PeerCursor.echoSafe`, the same rule on the device's side).
    func mayLeaveOutOwn(seq: UInt64, selection: SyncSelection) -> Bool {
        selection.scopes.allSatisfy { scope in
            [SyncScope.allSuites, scope].contains { echoSafe.contains($0) || since[$0].map { seq > $0 } == true }
        }
    }
}

extension SyncScope {
    /// How the hub's `devices.scope` column names a scope: empty for every suite.
    var hubColumn: String { suiteName ?? "" }
}
