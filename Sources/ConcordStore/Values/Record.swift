/// One stored record: a value or a tombstone, with the version that wrote it.
/// Merging keeps the record with the greater version; a tombstone is a record like any other.
///
/// ```swift
/// if let record = try suite.record(forKey: "theme") {
///     print(record.version, record.isTombstone ? "deleted" : try record.value()!.typeName)
/// }
/// ```
public struct Record: Hashable, Sendable {
    /// The version that wrote this record.
    public let version: Version
    /// The value's bytes in the value codec's encoding, or `nil` for a tombstone.
    package let valueBytes: [UInt8]?

    package init(version: Version, valueBytes: [UInt8]?) {
        self.version = version
        self.valueBytes = valueBytes
    }

    /// A record holding `value` (or a tombstone for `nil`).
    ///
    /// ```swift
    /// let record = try Record(version: Version(hlc: 1 << 16, replica: id), value: .string("dark"))
    /// ```
    ///
    /// - Throws: `StoreError.unsupportedValue` for a value the store cannot hold (NaN, nesting too deep).
    public init(version: Version, value: Value?) throws {
        self.init(version: version, valueBytes: try value.map { v throws(StoreError) in try ValueCodec.encode(v) })
    }

    /// Whether this record is a deletion.
    public var isTombstone: Bool { valueBytes == nil }

    /// The decoded value, or `nil` for a tombstone.
    ///
    /// - Throws: `ValueDecodingError` when the stored bytes do not decode (a damaged record).
    public func value() throws(ValueDecodingError) -> Value? {
        guard let valueBytes else { return nil }
        return try ValueCodec.decode(valueBytes)
    }

    // MARK: - Encoding: [flags 1][hlc 8, big-endian][replica 16][value…]

    /// The bytes of the fixed part: flags, hlc and replica.
    package static let headerSize = 25

    /// The record's bytes, identical on every replica that holds it.
    package var encoded: [UInt8] {
        var out = ByteWriter(capacity: Self.headerSize + (valueBytes?.count ?? 0))
        encode(into: &out)
        return out.bytes
    }

    package func encode(into out: inout ByteWriter) {
        out.u8(valueBytes == nil ? 1 : 0)
        out.u64(version.hlc)
        out.append(version.replica.bytes)
        if let valueBytes { out.append(valueBytes) }
    }

    /// The fixed part of an encoded record. After `read`, the reader is at the value.
    package struct Header {
        package let isTombstone: Bool
        package let hlc: UInt64
        /// Where the 16 replica bytes start in the reader's bytes.
        let replicaOffset: Int

        /// Reads and checks the header (a tombstone must end there); nothing is copied.
        package static func read(_ reader: inout ByteReader) throws(ValueDecodingError) -> Header {
            let flags = try reader.u8()
            guard flags <= 1 else { throw ValueDecodingError("unknown record flags \(flags)") }
            let hlc = try reader.u64()
            let replicaOffset = reader.offset
            _ = try reader.take(16)
            if flags == 1 {
                guard reader.isAtEnd else { throw ValueDecodingError("a tombstone followed by \(reader.remaining) bytes") }
            }
            return Header(isTombstone: flags == 1, hlc: hlc, replicaOffset: replicaOffset)
        }
    }

    /// Reads a record from the rest of `reader`; its value is checked to decode unless `validateValue` is false.
    package static func decode(_ reader: inout ByteReader, validateValue: Bool = true) throws(ValueDecodingError) -> Record {
        let header = try Header.read(&reader)
        let replica = ReplicaID(bytes: Array(reader.bytes[header.replicaOffset..<header.replicaOffset + 16]))!
        let version = Version(hlc: header.hlc, replica: replica)
        if header.isTombstone { return Record(version: version, valueBytes: nil) }
        let payload = Array(try reader.take(reader.remaining))
        if validateValue { _ = try ValueCodec.decode(payload) }
        return Record(version: version, valueBytes: payload)
    }

    /// Parses a record's whole `encoded` bytes.
    package static func decode(_ bytes: [UInt8]) throws(ValueDecodingError) -> Record {
        var reader = ByteReader(bytes)
        return try decode(&reader)
    }
}
