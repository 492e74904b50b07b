/// A row of `records`: `[journal seq 8][record]`, the record and the seq of its one journal entry.
package struct StoredRow {
    package let seq: UInt64
    package let record: Record

    package var encoded: [UInt8] {
        var out = ByteWriter(capacity: 8 + Record.headerSize + (record.valueBytes?.count ?? 0))
        Self.encode(seq: seq, record, into: &out)
        return out.bytes
    }

    /// Writes the row of `record` whose journal entry is `seq`.
    package static func encode(seq: UInt64, _ record: Record, into out: inout ByteWriter) {
        out.u64(seq)
        record.encode(into: &out)
    }

    package static func decode(_ bytes: [UInt8], validateValue: Bool = false) throws(ValueDecodingError) -> StoredRow {
        var r = ByteReader(bytes)
        let seq = try r.u64()
        return StoredRow(seq: seq, record: try Record.decode(&r, validateValue: validateValue))
    }

    /// Reads a row's seq and record header, checked as `decode` checks them, leaving `reader` at the value.
    package static func readHeader(_ reader: inout ByteReader) throws(ValueDecodingError) -> (seq: UInt64, header: Record.Header) {
        let seq = try reader.u64()
        return (seq, try Record.Header.read(&reader))
    }

    /// Whether the row holds a tombstone, from its flags byte alone (a scan's cheap filter; `decode` checks the rest).
    package static func isTombstone(_ bytes: [UInt8]) -> Bool { bytes.count > 8 && (bytes[8] == 1 || bytes[8] == 5) }

    /// A plain value's expiry, from its flags and expiry bytes alone (a scan's cheap filter; `decode` checks the rest).
    package static func expiry(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.count >= 8 + Record.headerSize + 8, bytes[8] == 3 else { return nil }
        return bytes[(8 + Record.headerSize)..<(8 + Record.headerSize + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// A record as this replica stores it: the record and the seq of its one journal entry.
///
/// ```swift
/// let row = try store.read { r in try r.storedRecord(suite: "prefs", key: "theme") }
/// ```
package struct StoredRecord: Hashable, Sendable {
    package let record: Record
    /// The seq of the journal entry that stored this record: later than a peer's cursor on this
    /// replica means the peer has not seen it.
    package let seq: UInt64

    package init(record: Record, seq: UInt64) {
        self.record = record
        self.seq = seq
    }
}
