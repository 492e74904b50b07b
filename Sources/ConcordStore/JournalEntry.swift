/// Who made a change, as stored in the journal: a process writing to this replica
/// (identified by a random token per process) or a sync that merged it from a peer.
public enum ChangeSource: Hashable, Sendable {
    case process(token: [UInt8])
    case sync(peer: ReplicaID)

    /// `[kind 1][token or peer 16]`, as journal entries and conflicts store it.
    func append(to out: inout [UInt8]) {
        switch self {
        case .process(let token): out.append(0); out.append(contentsOf: token)
        case .sync(let peer): out.append(1); out.append(contentsOf: peer.bytes)
        }
    }

    static func decode(_ r: inout ByteReader) throws(ValueDecodingError) -> ChangeSource {
        let kind = try r.byte()
        let id = Array(try r.take(16))
        switch kind {
        case 0: return .process(token: id)
        case 1: return .sync(peer: ReplicaID(bytes: id)!)
        default: throw ValueDecodingError("unknown change source kind \(kind)")
        }
    }
}

/// One entry of a replica's change journal: `(seq, suite, key, record)` and where the change came from.
///
/// ```swift
/// for entry in try store.changes(since: 0) { print(entry.seq, entry.suite, entry.key, entry.record.version) }
/// ```
public struct JournalEntry: Hashable, Sendable {
    public let seq: UInt64
    public let suite: String
    public let key: String
    public let record: Record
    public let source: ChangeSource

    public init(seq: UInt64, suite: String, key: String, record: Record, source: ChangeSource) {
        self.seq = seq
        self.suite = suite
        self.key = key
        self.record = record
        self.source = source
    }

    // [format 1][source kind][source 16][suite length 1][suite][key length 2][key][record]

    func encodedValue() -> [UInt8] {
        let s = suite.utf8, k = key.utf8
        var out: [UInt8] = []
        out.reserveCapacity(2 + 16 + 1 + s.count + 2 + k.count + Record.headerSize + (record.encodedValue?.count ?? 0))
        out.append(1)
        source.append(to: &out)
        Self.appendSuiteAndKey(suite, key, to: &out)
        record.append(to: &out)
        return out
    }

    static func decode(seq: UInt64, _ bytes: [UInt8]) throws(ValueDecodingError) -> JournalEntry {
        var r = ByteReader(bytes)
        let format = try r.byte()
        guard format == 1 else { throw ValueDecodingError("journal entry of unknown format \(format)") }
        let source = try ChangeSource.decode(&r)
        let (suite, key) = try Self.readSuiteAndKey(&r)
        let record = try Record.decode(&r)
        return JournalEntry(seq: seq, suite: suite, key: key, record: record, source: source)
    }

    /// `[suite length 1][suite][key length 2][key]`, as journal entries and conflicts store them.
    static func appendSuiteAndKey(_ suite: String, _ key: String, to out: inout [UInt8]) {
        let s = suite.utf8, k = key.utf8
        out.append(UInt8(s.count))
        out.append(contentsOf: s)
        out.append(UInt8(k.count >> 8)); out.append(UInt8(k.count & 0xff))
        out.append(contentsOf: k)
    }

    static func readSuiteAndKey(_ r: inout ByteReader) throws(ValueDecodingError) -> (suite: String, key: String) {
        guard let suite = String(validating: try r.take(Int(try r.byte())), as: UTF8.self) else { throw ValueDecodingError("a suite name that is not UTF-8") }
        guard let key = String(validating: try r.take(Int(try r.uint16())), as: UTF8.self) else { throw ValueDecodingError("a key that is not UTF-8") }
        return (suite, key)
    }
}
