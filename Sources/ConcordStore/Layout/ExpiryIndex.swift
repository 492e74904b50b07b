import LMDB

/// Reading the `expiries` database: the records that expire, by their expiry (see `StoreLayout`).
/// The write core keeps it in step with `records` in every transaction.
extension ReplicaRows {
    /// The records whose expiry is after `after` and at most `upTo` (milliseconds since 1970), as
    /// journal entries carrying their record's seq, oldest expiry first; and the earliest expiry after
    /// `upTo`, if any.
    package func expiries(after: UInt64, upTo: UInt64) throws -> ChangeHub.Expiries {
        var found = ChangeHub.Expiries()
        guard after < UInt64.max else { return found }
        try txn.scan(layout.expiries, from: StoreLayout.seqKey(after + 1)) { key, _ in
            guard let (expiry, recordKey) = StoreLayout.splitExpiryKey(key), let (suite, k) = StoreLayout.splitRecordKey(recordKey) else {
                throw ConcordError.damaged(path: path, reason: "an entry of the expiry index that is not expiry, suite\\0key")
            }
            guard expiry <= upTo else {
                found.next = expiry
                return false
            }
            guard let row = try storedRecord(suite: suite, key: k), row.record.expiresAtMilliseconds == expiry else {
                throw ConcordError.damaged(path: path, reason: "the expiry index names \(suite)/\(k) at \(expiry), which its record does not hold")
            }
            found.expired.append(JournalEntry(seq: row.seq, suite: suite, key: k, record: row.record, source: .sync(peer: replica)))
            return true
        }
        return found
    }

    /// How many records expire (the entries of the expiry index).
    package func expiringRecordCount() throws -> Int {
        var count = 0
        try txn.scan(layout.expiries, from: nil) { _, _ in
            count += 1
            return true
        }
        return count
    }
}
