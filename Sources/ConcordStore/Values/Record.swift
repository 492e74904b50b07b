/// One stored record: a value, a tombstone, or the state of a key with a merge policy, with the
/// version that wrote it. Plain records merge by last-writer-wins; a policy record carries what its
/// policy needs to combine concurrent changes (see `MergePolicy`) and says so in its own bytes.
///
/// ```swift
/// if let record = try suite.record(forKey: "theme") {
///     print(record.version, record.policy, record.isTombstone ? "deleted" : try record.value()!.typeName)
/// }
/// ```
public struct Record: Hashable, Sendable {
    /// The version that wrote this record (for a policy record: its latest write, the greatest
    /// version in it).
    public let version: Version
    private let body: Body

    /// What a record holds; a policy state lives in a box, so a plain record stays as small to copy as before.
    private enum Body: Hashable, Sendable {
        case value([UInt8])
        case tombstone
        indirect case policy(PolicyState)
    }

    package init(version: Version, valueBytes: [UInt8]?) {
        self.version = version
        self.body = valueBytes.map(Body.value) ?? .tombstone
    }

    /// A policy record.
    package init(version: Version, state: PolicyState) {
        self.version = version
        self.body = .policy(state)
    }

    /// A plain record's value bytes in the value codec's encoding; `nil` for a tombstone or a policy record.
    package var valueBytes: [UInt8]? {
        if case .value(let bytes) = body { return bytes }
        return nil
    }

    /// A policy record's state; `nil` for a plain record.
    package var state: PolicyState? {
        if case .policy(let state) = body { return state }
        return nil
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

    /// Whether this record holds no value: a deletion, or a policy record whose parts add up to
    /// nothing (a removed counter no replica has incremented since, an emptied removed set).
    public var isTombstone: Bool {
        switch body {
        case .value: return false
        case .tombstone: return true
        case .policy(let state): return (try? state.value()) == nil
        }
    }

    /// The merge policy the record reads by: `.lww` for a plain record.
    public var policy: MergePolicy { state?.policy ?? .lww }

    /// Whether this is a plain last-writer-wins record (a value or a tombstone).
    package var isPlain: Bool {
        if case .policy = body { return false }
        return true
    }

    /// The decoded value — for a policy record, what its parts add up to — or `nil` when it holds none.
    ///
    /// - Throws: `ValueDecodingError` when the stored bytes do not decode (a damaged record).
    public func value() throws(ValueDecodingError) -> Value? {
        switch body {
        case .value(let bytes): return try ValueCodec.decode(bytes)
        case .tombstone: return nil
        case .policy(let state): return try state.value()
        }
    }

    // MARK: - Encoding: [flags 1][hlc 8, big-endian][replica 16][value… | policy state…]
    // flags: 0 a value, 1 a tombstone (nothing follows), 2 a policy state (`PolicyState`'s encoding follows).

    /// The bytes of the fixed part: flags, hlc and replica.
    package static let headerSize = 25

    /// The record's bytes, identical on every replica that holds it.
    package var encoded: [UInt8] {
        var out = ByteWriter(capacity: Self.headerSize + (valueBytes?.count ?? 64))
        encode(into: &out)
        return out.bytes
    }

    package func encode(into out: inout ByteWriter) {
        switch body {
        case .value(let bytes):
            out.u8(0)
            out.u64(version.hlc)
            out.append(version.replica.bytes)
            out.append(bytes)
        case .tombstone:
            out.u8(1)
            out.u64(version.hlc)
            out.append(version.replica.bytes)
        case .policy(let state):
            out.u8(2)
            out.u64(version.hlc)
            out.append(version.replica.bytes)
            state.encode(into: &out)
        }
    }

    /// The fixed part of an encoded record. After `read`, the reader is at the value.
    package struct Header {
        package let isTombstone: Bool
        /// Whether a policy state follows (flags 2).
        package let isPolicy: Bool
        package let hlc: UInt64
        /// Where the 16 replica bytes start in the reader's bytes.
        let replicaOffset: Int

        /// Reads and checks the header (a tombstone must end there); nothing is copied.
        package static func read(_ reader: inout ByteReader) throws(ValueDecodingError) -> Header {
            let flags = try reader.u8()
            guard flags <= 2 else { throw ValueDecodingError("unknown record flags \(flags)") }
            let hlc = try reader.u64()
            let replicaOffset = reader.offset
            _ = try reader.take(16)
            if flags == 1 {
                guard reader.isAtEnd else { throw ValueDecodingError("a tombstone followed by \(reader.remaining) bytes") }
            }
            return Header(isTombstone: flags == 1, isPolicy: flags == 2, hlc: hlc, replicaOffset: replicaOffset)
        }
    }

    /// Reads a record from the rest of `reader`; its value (or policy state's values) is checked to decode
    /// unless `validateValue` is false.
    package static func decode(_ reader: inout ByteReader, validateValue: Bool = true) throws(ValueDecodingError) -> Record {
        let header = try Header.read(&reader)
        let replica = ReplicaID(bytes: Array(reader.bytes[header.replicaOffset..<header.replicaOffset + 16]))!
        let version = Version(hlc: header.hlc, replica: replica)
        if header.isTombstone { return Record(version: version, valueBytes: nil) }
        if header.isPolicy { return Record(version: version, state: try PolicyState.decode(&reader, validateValues: validateValue)) }
        let payload = Array(try reader.take(reader.remaining))
        if validateValue { _ = try ValueCodec.decode(payload) }
        return Record(version: version, valueBytes: payload)
    }

    /// Parses a record's whole `encoded` bytes; its value (or policy state's values) is checked to decode
    /// unless `validatingValue` is false (the sync layer's gate checks them, with the rest of the record).
    package static func decode(_ bytes: [UInt8], validatingValue: Bool = true) throws(ValueDecodingError) -> Record {
        var reader = ByteReader(bytes)
        return try decode(&reader, validateValue: validatingValue)
    }
}
