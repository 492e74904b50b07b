import ConcordStore
import ConcordSync

/// Merges a device's batch into its account on the hub, in one SQL transaction:
///
/// 1. takes the account's counter row under a row lock (`UPDATE … RETURNING`) and reserves one seq
///    per entry, so concurrent pushes to one account queue there and their seqs become visible in
///    the order they were handed out (a reader that has seen seq N never later finds a smaller one);
/// 2. reads the hub's rows for the batch's keys (stable: every push holds the counter lock) and finds
///    the concurrent writes — a hub row the device had not pulled, from another device, that differs
///    from the pushed record — whose losers the device logs before the commit, as a replica logs the
///    losers of the batches it merges (logging twice keeps one entry, so a retried push is harmless);
/// 3. upserts every entry in one statement; a row changes only when the pushed record wins by the
///    replicas' rule — greater (hlc, replica) compared in SQL as 24 version bytes, then a value over a
///    tombstone, then the value's bytes — and takes its reserved seq;
/// 4. moves the hub's cursor on the device (`devices.pushed`) to the batch's end;
/// 5. NOTIFYs the account's channel when a row changed; live devices wake on the commit.
///
/// ```swift
/// let outcome = try HubPush.push(delta.batch, to: hub)
/// ```
package enum HubPush {
    package struct Outcome: Equatable {
        /// Hub rows the batch changed (records that won, or keys new to the hub).
        package var rowsChanged = 0
        /// The account's last seq after the push.
        package var lastSeq: UInt64 = 0
        /// Concurrent writes met on the hub.
        package var meetings: [Meeting] = []
    }

    /// A pushed record met a hub row the device had not seen: one of them loses (last writer wins).
    package struct Meeting: Equatable {
        let entry: RemoteEntry
        let hubRecord: Record
        var pushedWins: Bool { RecordMerge.precedes(hubRecord, entry.record) }
    }

    static let upsert = """
        INSERT INTO concord_hub.records AS r (account, suite, key, version, value, seq, pushed_by)
        SELECT $1, e.suite, e.key, e.version, e.value, $2 + e.n, $3
        FROM unnest($4::text[], $5::text[], $6::bytea[], $7::bytea[]) WITH ORDINALITY AS e (suite, key, version, value, n)
        ON CONFLICT (account, suite, key) DO UPDATE
        SET version = EXCLUDED.version, value = EXCLUDED.value, seq = EXCLUDED.seq, pushed_by = EXCLUDED.pushed_by
        WHERE (r.version, r.value IS NOT NULL, coalesce(r.value, '\\x'::bytea))
            < (EXCLUDED.version, EXCLUDED.value IS NOT NULL, coalesce(EXCLUDED.value, '\\x'::bytea))
        """

    /// Pushes `batch` (read from the device's journal for the hub) in one transaction. `pulled(suite)`
    /// is how far the device has merged the hub for that suite; `beforeCommit` gets the concurrent
    /// writes met, while the transaction is still open.
    package static func push(_ batch: RemoteBatch, to hub: Hub, pulled: (String) -> UInt64,
                     beforeCommit: ([Meeting]) throws -> Void = { _ in }) throws -> Outcome {
        try HubError.wrapping {
            try hub.db.transaction {
                let outcome = try pushInOpenTransaction(batch, to: hub, pulled: pulled)
                if !outcome.meetings.isEmpty { try beforeCommit(outcome.meetings) }
                return outcome
            }
        }
    }

    /// The statements of a push, for a caller that holds the transaction (tests hold it open to
    /// show how concurrent pushes queue on the counter row).
    package static func pushInOpenTransaction(_ batch: RemoteBatch, to hub: Hub, pulled: (String) -> UInt64 = { _ in .max }) throws -> Outcome {
        let db = hub.db
        var outcome = Outcome()
        if !batch.entries.isEmpty {
            let n = Int64(batch.entries.count)
            let counter = try db.execute("""
                UPDATE concord_hub.accounts SET last_seq = last_seq + $2 WHERE name = $1 RETURNING last_seq - $2
                """, [.text(hub.account), .int8(n)], operation: "reserve seqs")
            guard counter.count == 1 else { throw HubError.accountNotVisible(account: hub.account, role: db.user) }
            let base = try counter.int64(0, 0)
            outcome.meetings = try meetings(batch, on: hub, pulled: pulled)
            let upserted = try db.execute(upsert, [
                .text(hub.account), .int8(base), .bytea(batch.source.bytes),
                .textArray(batch.entries.map(\.suite)), .textArray(batch.entries.map(\.key)),
                .byteaArray(batch.entries.map { versionBytes($0.record.version) }),
                .byteaArray(batch.entries.map(\.record.valueBytes)),
            ], operation: "push")
            outcome.rowsChanged = upserted.affected
            outcome.lastSeq = UInt64(base + n)
        }
        // The NOTIFY (when a row changed) rides in the same statement: one round trip less.
        try db.execute("""
            WITH announced AS (SELECT pg_notify($5, $6) WHERE $7)
            INSERT INTO concord_hub.devices AS d (account, device, scope, pushed)
            SELECT $1, $2, s, $4 FROM unnest($3::text[]) AS s LEFT JOIN announced ON true
            ON CONFLICT (account, device, scope) DO UPDATE SET pushed = greatest(d.pushed, EXCLUDED.pushed), last_seen = now()
            """, [.text(hub.account), .bytea(batch.source.bytes), .textArray(batch.selection.scopes.map(\.hubColumn)),
                  .int8(Int64(clamping: batch.toSeq)), .text(hub.channel), .text("\(outcome.lastSeq) \(batch.source)"),
                  .bool(outcome.rowsChanged > 0)], operation: "move the hub's cursor on the device")
        return outcome
    }

    /// The hub rows of `batch`'s keys that the device had not seen (after its cursor on the hub, pushed
    /// by another device, written by another replica) and that differ from the pushed record.
    private static func meetings(_ batch: RemoteBatch, on hub: Hub, pulled: (String) -> UInt64) throws -> [Meeting] {
        let rows = try hub.db.execute("""
            SELECT e.n, r.seq, r.suite, r.key, r.version, r.value, r.pushed_by
            FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS e (suite, key, n)
            JOIN concord_hub.records r ON r.account = $1 AND r.suite = e.suite AND r.key = e.key
            WHERE r.pushed_by <> $4 AND substring(r.version FROM 9) <> $4
            """, [.text(hub.account), .textArray(batch.entries.map(\.suite)), .textArray(batch.entries.map(\.key)),
                  .bytea(batch.source.bytes)], operation: "read the rows a push meets")
        var out: [Meeting] = []
        for row in 0..<rows.count {
            let entry = batch.entries[Int(try rows.int64(row, 0)) - 1]
            let hubRow = try HubPull.entry(rows, row, from: 1)
            guard hubRow.seq > pulled(entry.suite), hubRow.record != entry.record else { continue }
            out.append(Meeting(entry: entry, hubRecord: hubRow.record))
        }
        return out
    }

    /// How many of `batch`'s entries would change the hub (a dry run: nothing is written).
    static func plan(_ batch: RemoteBatch, to hub: Hub) throws -> Int {
        guard !batch.entries.isEmpty else { return 0 }
        return try HubError.wrapping {
            let rows = try hub.db.execute("""
                SELECT count(*) FROM unnest($2::text[], $3::text[], $4::bytea[], $5::bytea[]) AS e (suite, key, version, value)
                LEFT JOIN concord_hub.records r ON r.account = $1 AND r.suite = e.suite AND r.key = e.key
                WHERE r.account IS NULL
                   OR (r.version, r.value IS NOT NULL, coalesce(r.value, '\\x'::bytea))
                    < (e.version, e.value IS NOT NULL, coalesce(e.value, '\\x'::bytea))
                """, [.text(hub.account), .textArray(batch.entries.map(\.suite)), .textArray(batch.entries.map(\.key)),
                      .byteaArray(batch.entries.map { versionBytes($0.record.version) }),
                      .byteaArray(batch.entries.map(\.record.valueBytes))], operation: "plan a push")
            return Int(try rows.int64(0, 0))
        }
    }

    /// A version as the hub stores it: the hlc big-endian, then the replica id, so comparing the
    /// bytes compares versions (by hlc, then replica bytes, unsigned).
    static func versionBytes(_ version: Version) -> [UInt8] {
        PostgresValue.bigEndian(version.hlc) + version.replica.bytes
    }
}
