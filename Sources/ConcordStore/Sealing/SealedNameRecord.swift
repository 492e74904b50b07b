import LMDB

/// The record a key of an encrypted suite holds, read by its name: the sealed last-writer-wins
/// record under the name's row key and every replica's policy contribution under the row key
/// followed by that replica's id (one cursor range, since they share the row key as a prefix), each
/// opened and checked, merged by the merge rule (`RecordMerge`). For a policy key that is the join of
/// every replica's latest state, what one record in the clear would hold after the same syncs.
///
/// <!-- assume: let layout: StoreLayout = given() -->
/// ```swift
/// let sealing = SuiteSealing(suite: "secrets", key: .generate())
/// let stored = try SealedNameRecord.read(txn, layout, name: "launches", sealing: sealing, path: "/tmp/settings")
/// ```
package enum SealedNameRecord {
    /// The merged record of `name` and the greatest journal seq among its rows; nil when none is stored.
    ///
    /// - Throws: ``ConcordError`` `.undecodableRecord` when a row does not open under the suite's key
    ///   or is stored where it does not belong.
    package static func read(_ txn: Transaction, _ layout: StoreLayout, name: String, sealing: SuiteSealing, path: String) throws -> StoredRecord? {
        let prefix = StoreLayout.recordKey(suite: sealing.suite, key: sealing.rowKey(for: name))
        let reader = RowReader(suite: sealing.suite, key: name, path: path)
        var merged: StoredRecord?
        try txn.scan(layout.records, from: prefix) { key, value in
            guard key.starts(with: prefix) else { return false }
            guard let (_, storedKey) = StoreLayout.splitRecordKey(key) else {
                throw ConcordError.damaged(path: path, reason: "a record key that is not suite\\0key")
            }
            let row = try reader.row(value)
            // A row in the clear under a name that looks like a row key was written before the suite was encrypted.
            guard row.record.isSealed else { return true }
            let opened: Record
            do {
                let (found, record) = try sealing.openStored(row.record, storedKey: storedKey)
                guard found == name else { throw ValueDecodingError("the sealed record holds the name of another key") }
                opened = record
            } catch {
                throw reader.undecodable(error)
            }
            merged =
                merged.map { StoredRecord(record: RecordMerge.merge($0.record, opened), seq: max($0.seq, row.seq)) }
                ?? StoredRecord(record: opened, seq: row.seq)
            return true
        }
        return merged
    }
}
