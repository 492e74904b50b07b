import Concord

/// Merges a device's batch into its account on the hub, in one SQL transaction:
///
/// 1. takes the account's counter row under a row lock (`UPDATE … RETURNING`) and reserves one seq
///    per entry, so concurrent pushes to one account queue there and their seqs become visible in
///    the order they were handed out (a reader that has seen seq N never later finds a smaller one);
/// 2. reads the hub's rows for the batch's keys (stable: every push holds the counter lock), merges
///    each pushed record into its row with the replicas' own rule (`RecordMerge.merge`: the greater
///    plain record, or a policy record's combination — a counter's increments from every device add
///    up), and finds the concurrent overwrites — a hub row the device had not pulled, from another
///    device, whose whole value the merge discards — whose losers the device logs before the commit, as
///    a replica logs the losers of the batches it merges (logging twice keeps one entry, so a retried
///    push is harmless);
/// 3. writes every row the merge changed in one statement, each taking its reserved seq;
/// 4. moves the hub's cursor on the device (`devices.pushed`) to the batch's end, bound to the device's
///    mark the batch carries (in a resync, replaces it);
/// 5. NOTIFYs the account's channel when a row changed, with the account's last seq and nothing
///    else (no device id); live devices wake on the commit.
///
/// A push that hands out seqs also writes a new history mark of the account (`accounts.mark`, a row of
/// `marks`) in step 1, so a hub restored from a dump lacks the marks of the pushes it lost (see the
/// architecture document, "Trust and time"); old marks are pruned now and then, except those a device
/// holds (`devices.hub_mark`).
///
/// <!-- assume: let delta = try DeltaReader.read(from: store, for: nil, alreadyMerged: PeerKnowledge(received: try store.peerCursors())) -->
/// ```swift
/// let outcome = try HubPush.push(delta.batch, to: hub, pulled: { _ in 0 })   // nothing of the hub merged yet
/// ```
package enum HubPush {
    package struct Outcome: Equatable {
        /// Hub rows the batch changed (records that won, or keys new to the hub).
        package var rowsChanged = 0
        /// The account's last seq after the push.
        package var lastSeq: UInt64 = 0
        /// Concurrent writes met on the hub.
        package var meetings: [Meeting] = []
        /// The account's history mark after the push.
        package var mark: HistoryMark?
    }

    /// Marks an account keeps besides those its devices hold.
    static let keptMarks = 32

    /// A pushed record met a hub row the device had not seen, and the merge discards a whole value
    /// one of them wrote (last writer wins; combined changes, like two devices' increments, are no meeting).
    package struct Meeting: Equatable {
        let entry: RemoteEntry
        let hubRecord: Record
        /// The winning and losing whole values (plain records, or the bases of policy records).
        let winner: Record
        let loser: Record
        /// Whether the losing value is the device's (the pushed record's).
        var pushedLost: Bool { loser == (entry.record.state?.baseRecord ?? entry.record) }
    }

    static let upsert = """
        INSERT INTO concord_hub.records AS r (account, suite, key, version, value, policy, expires_ms, sealed, seq, pushed_by)
        SELECT $1, e.suite, e.key, e.version, e.value, e.policy::boolean, nullif(e.expires, '')::bigint, nullif(e.sealed, ''),
          $2 + e.n::bigint, $3
        FROM unnest($4::text[], $5::text[], $6::bytea[], $7::bytea[], $8::text[], $9::text[], $10::text[], $11::text[])
          AS e (suite, key, version, value, policy, n, expires, sealed)
        ON CONFLICT (account, suite, key) DO UPDATE
        SET version = EXCLUDED.version, value = EXCLUDED.value, policy = EXCLUDED.policy, expires_ms = EXCLUDED.expires_ms,
          sealed = EXCLUDED.sealed, seq = EXCLUDED.seq, pushed_by = EXCLUDED.pushed_by
        """

    /// Pushes `batch` (read from the device's journal for the hub) in one transaction. `pulled(suite)`
    /// is how far the device has merged the hub for that suite; `beforeCommit` gets the concurrent
    /// writes met, while the transaction is still open.
    package static func push(
        _ batch: RemoteBatch, to hub: Hub, pulled: (String) -> UInt64, replacing: Bool = false,
        beforeCommit: ([Meeting]) throws -> Void = { _ in }
    ) throws -> Outcome {
        try ConcordError.fromPostgres {
            try hub.db.transaction {
                let outcome = try pushInOpenTransaction(batch, to: hub, pulled: pulled, replacing: replacing)
                if !outcome.meetings.isEmpty { try beforeCommit(outcome.meetings) }
                return outcome
            }
        }
    }

    /// The statements of a push, for a caller that holds the transaction (tests hold it open to
    /// show how concurrent pushes queue on the counter row).
    /// `replacing` (a resync) sets the hub's cursor on the device to the batch's end even when it was further.
    package static func pushInOpenTransaction(
        _ batch: RemoteBatch, to hub: Hub, pulled: (String) -> UInt64 = { _ in .max }, replacing: Bool = false
    ) throws -> Outcome {
        let db = hub.db
        var outcome = Outcome()
        var seqBefore: Int64? // the account's last seq before this push (a new cursor's `since`)
        if !batch.entries.isEmpty {
            let n = Int64(batch.entries.count)
            let mark = HistoryMark.random(seq: 0).id
            let counter = try db.execute(
                """
                WITH c AS (UPDATE concord_hub.accounts SET last_seq = last_seq + $2, mark = $3 WHERE name = $1 RETURNING last_seq),
                m AS (INSERT INTO concord_hub.marks (account, mark, seq) SELECT $1, $3, last_seq FROM c)
                SELECT last_seq - $2 FROM c
                """, [.text(hub.account), .int8(n), .bytea(mark)], operation: "reserve seqs")
            guard counter.count == 1 else { throw ConcordError.accountNotVisible(account: hub.account, role: db.user) }
            let base = try counter.int64(0, 0)
            seqBefore = base
            outcome.mark = HistoryMark(id: mark, seq: UInt64(base + n))
            if (base + n) / Int64(keptMarks) != base / Int64(keptMarks) { try pruneMarks(hub) }
            let plan = try merges(batch, on: hub, pulled: pulled)
            outcome.meetings = plan.meetings
            if !plan.writes.isEmpty {
                let writes = plan.writes
                let records: [Record] = writes.map(\.record)
                let columns: [PostgresValue] = [
                    .textArray(writes.map { batch.entries[$0.index].suite }), .textArray(writes.map { batch.entries[$0.index].key }),
                    .byteaArray(records.map { versionBytes($0.version) }), .byteaArray(records.map(storedValue)),
                    .textArray(records.map { $0.isPlain ? "false" : "true" }), .textArray(writes.map { String($0.index + 1) }),
                    .textArray(records.map { $0.expiryMilliseconds.map(String.init) ?? "" }),
                    .textArray(records.map { HubSchema.sealedColumn($0) ?? "" })
                ]
                let upserted = try db.execute(
                    upsert, [.text(hub.account), .int8(base), .bytea(batch.source.bytes)] + columns, operation: "push")
                outcome.rowsChanged = upserted.affected
            }
            outcome.lastSeq = UInt64(base + n)
        }
        // The NOTIFY (when a row changed) rides in the same statement: one round trip less. The cursor is
        // bound to the device's mark when the mark covers where it ends up; the account's mark comes back.
        let moved = try db.execute(
            """
            WITH announced AS (SELECT pg_notify($5, $6) WHERE $7),
            moved AS (
              INSERT INTO concord_hub.devices AS d (account, device, scope, pushed, mark, mark_seq, since)
              SELECT $1, $2, s, $4, $8, $9, coalesce($11, (SELECT last_seq FROM concord_hub.accounts WHERE name = $1))
              FROM unnest($3::text[]) AS s LEFT JOIN announced ON true
              ON CONFLICT (account, device, scope) DO UPDATE SET
                pushed = CASE WHEN $10 THEN EXCLUDED.pushed ELSE greatest(d.pushed, EXCLUDED.pushed) END,
                mark = CASE WHEN EXCLUDED.mark_seq >= (CASE WHEN $10 THEN EXCLUDED.pushed ELSE greatest(d.pushed, EXCLUDED.pushed) END)
                  THEN EXCLUDED.mark ELSE d.mark END,
                mark_seq = CASE WHEN EXCLUDED.mark_seq >= (CASE WHEN $10 THEN EXCLUDED.pushed ELSE greatest(d.pushed, EXCLUDED.pushed) END)
                  THEN EXCLUDED.mark_seq ELSE d.mark_seq END,
                found_restored = false, last_seen = now()
              RETURNING 1)
            SELECT a.last_seq, a.mark, a.marks_pruned FROM concord_hub.accounts a WHERE a.name = $1 AND EXISTS (SELECT 1 FROM moved)
            """,
            [
                .text(hub.account), .bytea(batch.source.bytes), .textArray(batch.selection.scopes.map(\.hubColumn)),
                .int8(Int64(clamping: batch.toSeq)), .text(hub.channel), .text(String(outcome.lastSeq)),
                .bool(outcome.rowsChanged > 0), batch.mark.map { .bytea($0.id) } ?? .null,
                batch.mark.map { .int8(Int64(clamping: $0.seq)) } ?? .null, .bool(replacing), seqBefore.map { .int8($0) } ?? .null
            ], operation: "move the hub's cursor on the device")
        if outcome.mark == nil, moved.count == 1 {
            let history = try Hub.history(moved, 0)
            (outcome.mark, outcome.lastSeq) = (history.mark, history.lastSeq)
        }
        return outcome
    }

    /// Drops the account's marks that are neither among its newest `keptMarks` nor held by a device,
    /// and records the highest seq dropped (a device bound to a pruned mark cannot prove its cursor,
    /// which costs a full resync, never data). Runs inside a push, which holds the counter row.
    static func pruneMarks(_ hub: Hub) throws {
        try hub.db.execute(
            """
            WITH cutoff AS (SELECT seq FROM concord_hub.marks WHERE account = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1),
            dropped AS (
              DELETE FROM concord_hub.marks x USING cutoff WHERE x.account = $1 AND x.seq <= cutoff.seq
                AND NOT EXISTS (SELECT 1 FROM concord_hub.devices d WHERE d.account = $1 AND d.hub_mark = x.mark)
              RETURNING x.seq)
            UPDATE concord_hub.accounts SET marks_pruned = greatest(marks_pruned, (SELECT max(seq) FROM dropped))
            WHERE name = $1 AND EXISTS (SELECT 1 FROM dropped)
            """, [.text(hub.account), .int8(Int64(keptMarks))], operation: "prune the account's history marks")
    }

    /// What pushing `batch` does to the hub: for each entry, the hub's row merged with the pushed record
    /// (written when that changes the row), and the concurrent overwrites met — rows the device had not
    /// seen (after its cursor on the hub, pushed by another device, written by another replica).
    private static func merges(_ batch: RemoteBatch, on hub: Hub, pulled: (String) -> UInt64) throws
        -> (writes: [(index: Int, record: Record)], meetings: [Meeting])
    {
        // The rows of the batch's suites and keys, found through the primary key with array
        // conditions (one index scan whatever the batch's size); pairs not in the batch are left out.
        let rows = try hub.db.execute(
            """
            SELECT \(HubRow.columns) FROM concord_hub.records r
            WHERE r.account = $1 AND r.suite = ANY($2::text[]) AND r.key = ANY($3::text[])
            """, [.text(hub.account), .textArray(Array(Set(batch.entries.map(\.suite)))), .textArray(Array(Set(batch.entries.map(\.key))))],
            operation: "read the rows a push meets")
        let positions = Dictionary(batch.entries.enumerated().map { (SuiteKey(suite: $1.suite, key: $1.key), $0) }, uniquingKeysWith: { a, _ in a })
        var onHub: [Int: (entry: RemoteEntry, pushedBy: [UInt8])] = [:]
        // Rows the gate refuses (damaged, or a newer Concord's), with their versions when those are sound.
        var unreadable: [Int: Version?] = [:]
        let gate = RecordGate(maxValueBytes: Store.Options().maxValueBytes)
        for row in 0..<rows.count {
            let fields = try HubRow(rows, row)
            let suiteKey = SuiteKey(suite: String(decoding: fields.suite, as: UTF8.self), key: String(decoding: fields.key, as: UTF8.self))
            guard let index = positions[suiteKey] else { continue }
            switch fields.entry(gate: gate) {
            case .success(let hubRow): onHub[index] = (hubRow, try rows.bytes(row, HubRow.pushedByColumn))
            case .failure: unreadable[index] = fields.parsedVersion.flatMap { $0.hlc <= HybridClock.maxHLC ? $0 : nil }
            }
        }
        var writes: [(index: Int, record: Record)] = []
        var meetings: [Meeting] = []
        for (index, entry) in batch.entries.enumerated() {
            if let version = unreadable[index] {
                // A pushed record newer than a row this client cannot read (or than no sound version) replaces it;
                // an older one leaves it.
                if version.map({ entry.record.version > $0 }) ?? true { writes.append((index, entry.record)) }
                continue
            }
            guard let (hubRow, pushedBy) = onHub[index] else {
                writes.append((index, entry.record))
                continue
            }
            let merged = RecordMerge.merge(hubRow.record, entry.record)
            if merged != hubRow.record { writes.append((index, merged)) }
            guard pushedBy != batch.source.bytes, hubRow.record.version.replica != batch.source, hubRow.seq > pulled(entry.suite),
                let lost = RecordMerge.overwrite(hubRow.record, entry.record)
            else { continue }
            meetings.append(Meeting(entry: entry, hubRecord: hubRow.record, winner: lost.winner, loser: lost.loser))
        }
        return (writes, meetings)
    }

    /// How many of `batch`'s entries would change the hub (a dry run: nothing is written).
    static func plan(_ batch: RemoteBatch, to hub: Hub) throws -> Int {
        guard !batch.entries.isEmpty else { return 0 }
        return try ConcordError.fromPostgres { try merges(batch, on: hub, pulled: { _ in .max }).writes.count }
    }

    /// What the hub's `value` column holds for a record: a plain value's bytes (its expiry, if any, in
    /// `expires_ms`), a policy record's state (with `policy` true), a sealed record's sealed bytes (with
    /// `sealed` saying whether it is a deletion), or NULL for a tombstone in the clear.
    static func storedValue(_ record: Record) -> [UInt8]? {
        record.state?.encoded ?? record.valueBytes ?? record.sealedBytes
    }

    /// A version as the hub stores it: the hlc big-endian, then the replica id, so comparing the
    /// bytes compares versions (by hlc, then replica bytes, unsigned).
    static func versionBytes(_ version: Version) -> [UInt8] {
        PostgresValue.bigEndian(version.hlc) + version.replica.bytes
    }
}
