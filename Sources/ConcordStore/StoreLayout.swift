import LMDB

/// Where things live inside the LMDB environment of a replica.
///
/// - `meta`: `format` (UInt32), `replica` (16 bytes), `state` (clock: UInt64, last seq: UInt64), `created`.
/// - `records`: `suite 0x00 key` → `[journal seq: 8][record]`. The seq points at the record's
///   one journal entry, so a rewrite can delete the superseded entry in the same transaction.
/// - `journal`: `seq` (8 bytes, big-endian) → `JournalEntry`.
/// - `peers`, `conflicts`: used by the sync layer through the public low-level API.
struct StoreLayout: Sendable {
    let meta: Database
    let records: Database
    let journal: Database
    let peers: Database
    let conflicts: Database

    static let formatKey = Array("format".utf8)
    static let replicaKey = Array("replica".utf8)
    static let stateKey = Array("state".utf8)
    static let createdKey = Array("created".utf8)

    static func recordKey(suite: String, key: String) -> [UInt8] {
        var suite = suite, key = key
        return suite.withUTF8 { s in
            key.withUTF8 { k in
                [UInt8](unsafeUninitializedCapacity: s.count + 1 + k.count) { buffer, count in
                    _ = buffer.initialize(fromContentsOf: s)
                    buffer[s.count] = 0
                    _ = buffer[(s.count + 1)...].initialize(fromContentsOf: k)
                    count = s.count + 1 + k.count
                }
            }
        }
    }

    /// The first record key of `suite` (scan from here while the key starts with it).
    static func suitePrefix(_ suite: String) -> [UInt8] {
        var out = Array(suite.utf8)
        out.append(0)
        return out
    }

    static func splitRecordKey(_ bytes: [UInt8]) -> (suite: String, key: String)? {
        guard let zero = bytes.firstIndex(of: 0),
              let suite = String(validating: bytes[..<zero], as: UTF8.self),
              let key = String(validating: bytes[(zero + 1)...], as: UTF8.self) else { return nil }
        return (suite, key)
    }

    static func seqKey(_ seq: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(8)
        ValueCodec.appendUInt64(seq, to: &out)
        return out
    }

    static func decodeSeq(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// The replica's clock and journal position, kept under `meta/state`.
struct ReplicaState {
    var clock: UInt64
    var seq: UInt64

    static func load(_ txn: Transaction, _ layout: StoreLayout) throws -> ReplicaState {
        guard let bytes = try txn.get(layout.meta, StoreLayout.stateKey), bytes.count == 16 else {
            return ReplicaState(clock: 0, seq: 0)
        }
        var r = ByteReader(bytes)
        return ReplicaState(clock: try r.uint64(), seq: try r.uint64())
    }

    func save(_ txn: Transaction, _ layout: StoreLayout) throws {
        var out: [UInt8] = []
        ValueCodec.appendUInt64(clock, to: &out)
        ValueCodec.appendUInt64(seq, to: &out)
        try txn.put(layout.meta, StoreLayout.stateKey, out)
    }
}

/// A stored row of `records`: the record and the seq of its journal entry.
struct StoredRow {
    let seq: UInt64
    let record: Record

    var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(8 + Record.headerSize + (record.encodedValue?.count ?? 0))
        ValueCodec.appendUInt64(seq, to: &out)
        record.append(to: &out)
        return out
    }

    static func decode(_ bytes: [UInt8], validateValue: Bool = false) throws(ValueDecodingError) -> StoredRow {
        var r = ByteReader(bytes)
        let seq = try r.uint64()
        return StoredRow(seq: seq, record: try Record.decode(&r, validateValue: validateValue))
    }

    /// Reads a row's seq and record header, checked as `decode` checks them, leaving `reader` at the value.
    static func readHeader(_ reader: inout ByteReader) throws(ValueDecodingError) -> Record.Header {
        _ = try reader.uint64()
        return try Record.Header.read(&reader)
    }

    /// A row's seq and the hlc of its record, checked as `decode` checks them, without copying the value.
    static func decodeSeqAndHLC(_ bytes: [UInt8]) throws(ValueDecodingError) -> (seq: UInt64, hlc: UInt64) {
        var r = ByteReader(bytes)
        let seq = try r.uint64()
        return (seq, try Record.Header.read(&r).hlc)
    }
}
