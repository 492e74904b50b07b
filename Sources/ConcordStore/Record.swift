/// One stored record: a value or a tombstone, with the version that wrote it.
/// Merging keeps the record with the greater version; a tombstone is a record like any other.
///
/// ```swift
/// if let record = try suite.record(forKey: "theme") {
///     print(record.version, record.isTombstone ? "deleted" : try record.value()!.typeName)
/// }
/// ```
public struct Record: Hashable, Sendable {
    public let version: Version
    /// The value's encoding (`ValueCodec`), or `nil` for a tombstone.
    public let encodedValue: [UInt8]?

    public init(version: Version, encodedValue: [UInt8]?) {
        self.version = version
        self.encodedValue = encodedValue
    }

    /// A record holding `value` (or a tombstone for `nil`).
    public init(version: Version, value: Value?) throws {
        self.init(version: version, encodedValue: try value.map { try ValueCodec.encode($0) })
    }

    public var isTombstone: Bool { encodedValue == nil }

    /// The decoded value, or `nil` for a tombstone.
    public func value() throws(ValueDecodingError) -> Value? {
        guard let encodedValue else { return nil }
        return try ValueCodec.decode(encodedValue)
    }

    /// The merge rule: the record with the greater version wins.
    public static func merge(_ a: Record, _ b: Record) -> Record { a.version >= b.version ? a : b }

    // MARK: - Encoding: [flags][hlc: 8, big-endian][replica: 16][value…]

    static let headerSize = 25

    /// The record's bytes, identical on every replica that holds it.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.headerSize + (encodedValue?.count ?? 0))
        append(to: &out)
        return out
    }

    func append(to out: inout [UInt8]) {
        out.append(encodedValue == nil ? 1 : 0)
        ValueCodec.appendUInt64(version.hlc, to: &out)
        out.append(contentsOf: version.replica.bytes)
        if let encodedValue { out.append(contentsOf: encodedValue) }
    }

    /// The fixed part of an encoded record: flags, hlc and replica. After `read`, the reader is at the value.
    struct Header {
        let isTombstone: Bool
        let hlc: UInt64
        /// Where the 16 replica bytes start in the reader's bytes.
        let replicaOffset: Int

        /// Reads and checks the header (a tombstone must end there); nothing is copied.
        static func read(_ reader: inout ByteReader) throws(ValueDecodingError) -> Header {
            let flags = try reader.byte()
            guard flags <= 1 else { throw ValueDecodingError("unknown record flags \(flags)") }
            let hlc = try reader.uint64()
            let replicaOffset = reader.offset
            _ = try reader.take(16)
            if flags == 1 {
                guard reader.isAtEnd else { throw ValueDecodingError("a tombstone followed by \(reader.remaining) bytes") }
            }
            return Header(isTombstone: flags == 1, hlc: hlc, replicaOffset: replicaOffset)
        }
    }

    /// Reads a record from the rest of `reader` (its value is checked to decode).
    static func decode(_ reader: inout ByteReader, validateValue: Bool = true) throws(ValueDecodingError) -> Record {
        let header = try Header.read(&reader)
        let replica = ReplicaID(bytes: Array(reader.bytes[header.replicaOffset..<header.replicaOffset + 16]))!
        let version = Version(hlc: header.hlc, replica: replica)
        if header.isTombstone { return Record(version: version, encodedValue: nil) }
        let payload = Array(try reader.take(reader.remaining))
        if validateValue { _ = try ValueCodec.decode(payload) }
        return Record(version: version, encodedValue: payload)
    }

    /// Parses `encoded` bytes back into a record.
    public static func decode(_ bytes: [UInt8]) throws(ValueDecodingError) -> Record {
        var reader = ByteReader(bytes)
        return try decode(&reader)
    }
}
