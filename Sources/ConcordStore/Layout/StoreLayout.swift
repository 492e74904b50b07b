import LMDB

/// Where things live inside the LMDB environment of a replica (the architecture document describes
/// the bytes of each):
///
/// - `meta`: `format` (UInt32), `replica` (16 bytes), `state` (`ReplicaState`), `created`.
/// - `records`: `suite 0x00 key` → `StoredRow` (the journal seq of the record's one journal entry,
///   then the record), so a rewrite can delete the superseded entry in the same transaction.
/// - `journal`: `seq` (8 bytes, big-endian) → `JournalEntry`.
/// - `peers`, `conflicts`, `marks`: the sync layer's cursors, conflict log and history marks.
/// - `expiries`: `[expiry ms 8][suite 0x00 key]` → empty, one per record that expires (store format 7):
///   the earliest expiry is one seek away, for the observers' timer.
///
/// A class, so that handing the layout to each read and write shares it rather than copying seven handles.
package final class StoreLayout: Sendable {
    package let meta: Database
    package let records: Database
    package let journal: Database
    package let peers: Database
    package let conflicts: Database
    package let marks: Database
    package let expiries: Database

    package init(
        meta: Database, records: Database, journal: Database, peers: Database, conflicts: Database, marks: Database, expiries: Database
    ) {
        (self.meta, self.records, self.journal, self.peers) = (meta, records, journal, peers)
        (self.conflicts, self.marks, self.expiries) = (conflicts, marks, expiries)
    }

    static let formatKey = Array("format".utf8)
    package static let replicaKey = Array("replica".utf8)
    static let stateKey = Array("state".utf8)
    static let createdKey = Array("created".utf8)
    /// The highest seq of a history mark this replica has pruned (the sync layer's, UInt64).
    package static let marksPrunedKey = Array("marks-pruned".utf8)
    /// `hub:` and a peer's id: that peer is a hub account's replica, named by the account (UTF-8).
    /// Local to this replica (never synced): what `peerStatus` calls the hub.
    package static let hubPeerPrefix = Array("hub:".utf8)

    /// `suite 0x00 key`: records sort by suite, then key.
    package static func recordKey(suite: String, key: String) -> [UInt8] {
        var out = ByteWriter(capacity: suite.utf8.count + 1 + key.utf8.count)
        recordKey(suite: suite, key: key, into: &out)
        return out.bytes
    }

    /// Writes the record key of `suite`/`key` to `out`.
    package static func recordKey(suite: String, key: String, into out: inout ByteWriter) {
        let (s, k) = (suite.utf8.span, key.utf8.span)
        out.fixed(s.count + 1 + k.count) { out in
            out.utf8(s)
            out.u8(0)
            out.utf8(k)
        }
    }

    /// The first record key of `suite` (scan from here while the key starts with it).
    package static func suitePrefix(_ suite: String) -> [UInt8] {
        var out = Array(suite.utf8)
        out.append(0)
        return out
    }

    package static func splitRecordKey(_ bytes: [UInt8]) -> (suite: String, key: String)? {
        guard let zero = bytes.firstIndex(of: 0),
            let suite = String(validating: bytes[..<zero], as: UTF8.self),
            let key = String(validating: bytes[(zero + 1)...], as: UTF8.self)
        else { return nil }
        return (suite, key)
    }

    /// `[expiry 8][suite 0x00 key]`: the index entry of a record expiring at `expiry`.
    package static func expiryKey(_ expiry: UInt64, recordKey: [UInt8]) -> [UInt8] {
        var out = ByteWriter(capacity: 8 + recordKey.count)
        out.u64(expiry)
        out.append(recordKey)
        return out.bytes
    }

    /// The expiry and record key of an index entry of `expiries`.
    package static func splitExpiryKey(_ bytes: [UInt8]) -> (expiry: UInt64, recordKey: [UInt8])? {
        guard bytes.count > 9, let expiry = decodeSeq(Array(bytes[..<8])) else { return nil }
        return (expiry, Array(bytes[8...]))
    }

    package static func seqKey(_ seq: UInt64) -> [UInt8] {
        var out = ByteWriter(capacity: 8)
        out.u64(seq)
        return out.bytes
    }

    package static func decodeSeq(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        var r = ByteReader(bytes)
        return try? r.u64()
    }
}
