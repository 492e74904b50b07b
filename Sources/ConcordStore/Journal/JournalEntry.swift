/// One entry of a replica's change journal: `(seq, suite, key, record)` and where the change came from.
/// Readers outside the store see it as a ``Change`` (``Store/changes(after:suite:limit:)``).
package struct JournalEntry: Hashable, Sendable {
    /// The entry's position in the replica's journal.
    package let seq: UInt64
    /// The suite of the changed key.
    package let suite: String
    /// The changed key.
    package let key: String
    /// The record the change stored (a tombstone for a delete).
    package let record: Record
    /// Who made the change.
    package let source: ChangeSource

    package init(seq: UInt64, suite: String, key: String, record: Record, source: ChangeSource) {
        self.seq = seq
        self.suite = suite
        self.key = key
        self.record = record
        self.source = source
    }

    // Format 2 (stores of format 4): [2][replica clock 8][source kind][source 16][suite length 1][suite][key length 2][key][record]
    // Format 1 (written by stores of formats 1-3, still read): [1][source kind][source 16][suite length 1]...

    /// The bytes of an entry's header that hold the replica clock (`clock(prefix:)` reads them).
    static let clockPrefixSize = 9

    /// The entry's bytes, carrying `clock`: the replica's clock after this change.
    package func encoded(clock: UInt64) -> [UInt8] {
        var out = ByteWriter(capacity: 9 + 17 + 3 + suite.utf8.count + key.utf8.count + Record.headerSize + (record.valueBytes?.count ?? 0))
        Self.encode(suite: suite, key: key, record: record, source: source, clock: clock, into: &out)
        return out.bytes
    }

    /// Writes the entry of a change of `suite`/`key` to `record`, made by `source`, carrying `clock`.
    package static func encode(suite: String, key: String, record: Record, source: ChangeSource, clock: UInt64, into out: inout ByteWriter) {
        encodeHeader(suite: suite, key: key, source: source, clock: clock, into: &out)
        record.encode(into: &out)
    }

    /// Writes what precedes an entry's record.
    package static func encodeHeader(suite: String, key: String, source: ChangeSource, clock: UInt64, into out: inout ByteWriter) {
        let (s, k) = (suite.utf8.span, key.utf8.span)
        out.fixed(clockPrefixSize + ChangeSource.encodedSize + 1 + s.count + 2 + k.count) { out in
            out.u8(2)
            out.u64(clock)
            source.encode(into: &out)
            out.u8(UInt8(truncatingIfNeeded: s.count))
            out.utf8(s)
            out.u16(UInt16(truncatingIfNeeded: k.count))
            out.utf8(k)
        }
    }

    package static func decode(seq: UInt64, _ bytes: [UInt8]) throws(ValueDecodingError) -> JournalEntry {
        try Head.decode(seq: seq, bytes).entry()
    }

    /// An entry read up to its record: who made the change, the suite and key, and whether the record
    /// is plain (its flags byte), so a reader can pass over an entry without decoding its record.
    package struct Head {
        package let seq: UInt64
        package let source: ChangeSource
        package let suite: String
        package let key: String
        private let reader: ByteReader

        /// Whether the record is a plain one (a value or a tombstone), not a policy state.
        package var isPlainRecord: Bool { reader.offset < reader.bytes.count && reader.bytes[reader.offset] != 2 }

        package static func decode(seq: UInt64, _ bytes: [UInt8]) throws(ValueDecodingError) -> Head {
            var r = ByteReader(bytes)
            let source = try decodeSource(&r)
            let suite = try r.string(lengthBytes: 1)
            let key = try r.string(lengthBytes: 2)
            return Head(seq: seq, source: source, suite: suite, key: key, reader: r)
        }

        /// The whole entry: the record decoded (its value checked) as well.
        package func entry() throws(ValueDecodingError) -> JournalEntry {
            var r = reader
            let record = try Record.decode(&r)
            return JournalEntry(seq: seq, suite: suite, key: key, record: record, source: source)
        }
    }

    /// Reads the format byte, the clock (format 2) and the source, leaving `r` at the suite: enough to tell who made a change.
    package static func decodeSource(_ r: inout ByteReader) throws(ValueDecodingError) -> ChangeSource {
        let format = try r.u8()
        switch format {
        case 1: break
        case 2: _ = try r.u64()
        default: throw ValueDecodingError("journal entry of unknown format \(format)")
        }
        return try ChangeSource.decode(&r)
    }

    /// The replica clock an entry's first `clockPrefixSize` bytes carry; nil for a format-1 entry (or too few bytes).
    static func clock(prefix: [UInt8]) -> UInt64? {
        guard prefix.count >= clockPrefixSize, prefix[0] == 2 else { return nil }
        var r = ByteReader(prefix)
        _ = try? r.u8()
        return try? r.u64()
    }
}
