/// One entry of a replica's change journal: `(seq, suite, key, record)` and where the change came from.
///
/// ```swift
/// for entry in try store.journalEntries(after: 0) { print(entry.seq, entry.suite, entry.key, entry.record.version) }
/// ```
public struct JournalEntry: Hashable, Sendable {
    /// The entry's position in the replica's journal.
    public let seq: UInt64
    public let suite: String
    public let key: String
    /// The record the change stored (a tombstone for a delete).
    public let record: Record
    /// Who made the change.
    public let source: ChangeSource

    package init(seq: UInt64, suite: String, key: String, record: Record, source: ChangeSource) {
        self.seq = seq
        self.suite = suite
        self.key = key
        self.record = record
        self.source = source
    }

    // [format 1][source kind][source 16][suite length 1][suite][key length 2][key][record]

    package var encoded: [UInt8] {
        var out = ByteWriter(capacity: 1 + 17 + 3 + suite.utf8.count + key.utf8.count + Record.headerSize + (record.valueBytes?.count ?? 0))
        out.u8(1)
        source.encode(into: &out)
        out.string(suite, lengthBytes: 1)
        out.string(key, lengthBytes: 2)
        record.encode(into: &out)
        return out.bytes
    }

    package static func decode(seq: UInt64, _ bytes: [UInt8]) throws(ValueDecodingError) -> JournalEntry {
        var r = ByteReader(bytes)
        let source = try decodeSource(&r)
        let suite = try r.string(lengthBytes: 1)
        let key = try r.string(lengthBytes: 2)
        let record = try Record.decode(&r)
        return JournalEntry(seq: seq, suite: suite, key: key, record: record, source: source)
    }

    /// Reads the format byte and the source, leaving `r` at the suite: enough to tell who made a change.
    package static func decodeSource(_ r: inout ByteReader) throws(ValueDecodingError) -> ChangeSource {
        let format = try r.u8()
        guard format == 1 else { throw ValueDecodingError("journal entry of unknown format \(format)") }
        return try ChangeSource.decode(&r)
    }
}
