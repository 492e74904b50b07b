import Foundation

/// One stored record: a value, a tombstone, or the state of a key with a merge policy, with the
/// version that wrote it. Plain records merge by last-writer-wins; a policy record carries what its
/// policy needs to combine concurrent changes (see `MergePolicy`) and says so in its own bytes.
///
/// ```swift
/// if let record = try suite.record(forKey: "theme") {
///     print(record.version, record.policy, record.isTombstone ? "deleted" : try record.value()!.typeName)
/// }
/// ```
///
/// A plain value may carry an expiry (``Suite/set(_:forKey:expiresAt:)-3f0x``): from then on it reads as
/// absent, on every replica that holds it, while it still merges by its version like any other record.
public struct Record: Hashable, Sendable {
    /// The version that wrote this record (for a policy record: its latest write, the greatest
    /// version in it).
    public let version: Version
    private let body: Body
    /// When a plain value stops reading as a value, in milliseconds since 1970 (nil: never).
    package let expiryMilliseconds: UInt64?

    /// What a record holds; a policy state lives in a box, so a plain record stays small to copy.
    private enum Body: Hashable, Sendable {
        case value([UInt8])
        case tombstone
        indirect case policy(PolicyState)
        /// A record of an encrypted suite as it is stored and synced: what `SuiteSealing` sealed, opened
        /// only with the suite's key. A sealed tombstone says so in its flags (it holds the key's name only).
        case sealed([UInt8], tombstone: Bool)
    }

    /// A plain record: a value (expiring at `expiryMilliseconds`, when given) or a tombstone (`nil`).
    package init(version: Version, valueBytes: [UInt8]?, expiryMilliseconds: UInt64? = nil) {
        self.version = version
        self.body = valueBytes.map(Body.value) ?? .tombstone
        self.expiryMilliseconds = valueBytes == nil ? nil : expiryMilliseconds
    }

    /// A sealed record (flags 4, or 5 for a tombstone): `sealed` is the nonce, ciphertext and tag.
    package init(version: Version, sealed: [UInt8], isTombstone: Bool) {
        self.version = version
        self.body = .sealed(sealed, tombstone: isTombstone)
        self.expiryMilliseconds = nil
    }

    /// A sealed record's bytes (nonce, ciphertext, tag); nil for a record in the clear.
    package var sealedBytes: [UInt8]? {
        if case .sealed(let bytes, _) = body { return bytes }
        return nil
    }

    /// Whether the record is sealed: it belongs to an encrypted suite and opens only with its key.
    package var isSealed: Bool { sealedBytes != nil }

    /// A policy record.
    package init(version: Version, state: PolicyState) {
        self.version = version
        self.body = .policy(state)
        self.expiryMilliseconds = nil
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
    /// <!-- assume: let id = store.replicaID -->
    /// ```swift
    /// let record = try Record(version: Version(hlc: 1 << 16, replica: id), value: .string("dark"))
    /// ```
    ///
    /// - Throws: ``ConcordError`` `.unsupportedValue` for a value the store cannot hold (NaN, nesting too deep).
    public init(version: Version, value: Value?) throws {
        self.init(version: version, valueBytes: try value.map { v throws(ConcordError) in try ValueCodec.encode(v) })
    }

    /// When the value expires, if it does: a plain value's own expiry, or (in a policy record) the
    /// expiry of the whole-value write its parts add to.
    ///
    /// ```swift
    /// if let expires = try suite.record(forKey: "token")?.expires { print("gone at", expires) }
    /// ```
    public var expires: Date? {
        expiresAtMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// `expires` in milliseconds since 1970: the time from which this record reads differently.
    package var expiresAtMilliseconds: UInt64? {
        if let expiryMilliseconds { return expiryMilliseconds }
        return state?.base?.expiryMilliseconds
    }

    /// Whether the record's value has expired at `now` (milliseconds since 1970).
    package func hasExpired(at now: UInt64) -> Bool {
        guard let expiry = expiresAtMilliseconds else { return false }
        return now >= expiry
    }

    /// Whether this record reads as absent at `now` (milliseconds since 1970): a tombstone, an
    /// expired value, or a policy record whose parts add up to nothing then.
    package func readsAsAbsent(at now: UInt64) -> Bool {
        switch body {
        case .value: return hasExpired(at: now)
        case .tombstone: return true
        case .policy(let state): return (try? state.value(at: now)) == nil
        case .sealed(_, let tombstone): return tombstone
        }
    }

    /// What a read returns at `now` (milliseconds since 1970): the value, or `nil` when the record
    /// holds none or its value has expired.
    ///
    /// - Throws: `ValueDecodingError` when the stored bytes do not decode (a damaged record).
    package func value(at now: UInt64) throws(ValueDecodingError) -> Value? {
        switch body {
        case .value(let bytes): return now >= (expiryMilliseconds ?? .max) ? nil : try ValueCodec.decode(bytes)
        case .tombstone: return nil
        case .policy(let state): return try state.value(at: now)
        case .sealed(_, let tombstone): if tombstone { return nil } else { throw Self.stillSealed }
        }
    }

    /// Whether this record holds no value: a deletion, or a policy record whose parts add up to
    /// nothing (a removed counter no replica has incremented since, an emptied removed set). An
    /// expired value is not a tombstone: it still holds its value, which reads as absent after its
    /// expiry (`expires`).
    public var isTombstone: Bool {
        switch body {
        case .value: return false
        case .tombstone: return true
        case .policy(let state): return (try? state.value()) == nil
        case .sealed(_, let tombstone): return tombstone
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
    /// An expiring value is returned whether or not it has expired (`expires` says when it does).
    ///
    /// - Throws: ``ConcordError`` `.damaged` when the stored bytes do not decode (a damaged record).
    public func value() throws(ConcordError) -> Value? {
        do { return try decodedValue() } catch { throw ConcordError(.damaged, error.reason) }
    }

    /// The decoded value (see `value()`), with the decoding error as it is.
    package func decodedValue() throws(ValueDecodingError) -> Value? {
        switch body {
        case .value(let bytes): return try ValueCodec.decode(bytes)
        case .tombstone: return nil
        case .policy(let state): return try state.value()
        case .sealed(_, let tombstone): if tombstone { return nil } else { throw Self.stillSealed }
        }
    }

    /// What reading a sealed record's value without opening it is.
    private static var stillSealed: ValueDecodingError { ValueDecodingError("the record is sealed: only its suite's key opens it") }

    // MARK: - Encoding: [flags 1][hlc 8, big-endian][replica 16][expiry 8 if flags 3][value… | policy state… | sealed…]
    // flags: 0 a value, 1 a tombstone (nothing follows), 2 a policy state (`PolicyState`'s encoding follows),
    // 3 a value that expires (its expiry in milliseconds since 1970, then the value; store format 7),
    // 4 a sealed record of an encrypted suite, 5 a sealed tombstone (nonce, ciphertext and tag follow; format 9).

    /// The bytes of the fixed part: flags, hlc and replica.
    package static let headerSize = 25

    /// The record's bytes, identical on every replica that holds it.
    package var encoded: [UInt8] {
        var out = ByteWriter(capacity: Self.headerSize + 8 + (valueBytes?.count ?? 64))
        encode(into: &out)
        return out.bytes
    }

    package func encode(into out: inout ByteWriter) {
        switch body {
        case .value(let bytes):
            Self.encodePlainHeader(hlc: version.hlc, replica: version.replica, expiry: expiryMilliseconds, into: &out)
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
        case .sealed(let bytes, let tombstone):
            out.u8(tombstone ? 5 : 4)
            out.u64(version.hlc)
            out.append(version.replica.bytes)
            out.append(bytes)
        }
    }

    /// Writes what precedes a plain value's bytes: flags 0 (or 3 with an expiry), the hlc, the replica
    /// and the expiry; returns where the hlc is in `out`.
    @discardableResult
    package static func encodePlainHeader(hlc: UInt64, replica: ReplicaID, expiry: UInt64?, into out: inout ByteWriter) -> Int {
        let at = out.count + 1
        out.fixed(headerSize + (expiry == nil ? 0 : 8)) { out in
            out.u8(expiry == nil ? 0 : 3)
            out.u64(hlc)
            out.bytes(replica.bytes)
            if let expiry { out.u64(expiry) }
        }
        return at
    }

    /// The fixed part of an encoded record. After `read`, the reader is at the value.
    package struct Header {
        package let isTombstone: Bool
        /// Whether a policy state follows (flags 2).
        package let isPolicy: Bool
        /// Whether sealed bytes follow (flags 4, or 5: a sealed tombstone, `isTombstone` too).
        package let isSealed: Bool
        package let hlc: UInt64
        /// A plain value's expiry (flags 3), in milliseconds since 1970.
        package let expiryMilliseconds: UInt64?
        /// Where the 16 replica bytes start in the reader's bytes.
        let replicaOffset: Int

        /// Reads and checks the header (a tombstone must end there); nothing is copied.
        package static func read(_ reader: inout ByteReader) throws(ValueDecodingError) -> Header {
            let flags = try reader.u8()
            guard flags <= 5 else { throw ValueDecodingError("unknown record flags \(flags)") }
            let hlc = try reader.u64()
            let replicaOffset = reader.offset
            _ = try reader.take(16)
            if flags == 1 {
                guard reader.isAtEnd else { throw ValueDecodingError("a tombstone followed by \(reader.remaining) bytes") }
            }
            if flags >= 4, reader.remaining < SuiteSealing.minimumSealedBytes {
                throw ValueDecodingError("a sealed record of \(reader.remaining) bytes, fewer than a seal takes")
            }
            let expiry = flags == 3 ? try reader.u64() : nil
            return Header(
                isTombstone: flags == 1 || flags == 5, isPolicy: flags == 2, isSealed: flags >= 4, hlc: hlc, expiryMilliseconds: expiry,
                replicaOffset: replicaOffset)
        }

        /// Whether a read at `now` finds no value: a tombstone, or an expired value.
        package func readsAsAbsent(at now: UInt64) -> Bool {
            isTombstone || now >= (expiryMilliseconds ?? .max)
        }
    }

    /// Reads a record from the rest of `reader`; its value (or policy state's values) is checked to decode
    /// unless `validateValue` is false.
    package static func decode(_ reader: inout ByteReader, validateValue: Bool = true) throws(ValueDecodingError) -> Record {
        let header = try Header.read(&reader)
        let replica = ReplicaID(bytes: Array(reader.bytes[header.replicaOffset..<header.replicaOffset + 16]))!
        let version = Version(hlc: header.hlc, replica: replica)
        if header.isSealed { return Record(version: version, sealed: Array(try reader.take(reader.remaining)), isTombstone: header.isTombstone) }
        if header.isTombstone { return Record(version: version, valueBytes: nil) }
        if header.isPolicy { return Record(version: version, state: try PolicyState.decode(&reader, validateValues: validateValue)) }
        let payload = Array(try reader.take(reader.remaining))
        if validateValue { _ = try ValueCodec.decode(payload) }
        return Record(version: version, valueBytes: payload, expiryMilliseconds: header.expiryMilliseconds)
    }

    /// Parses a record's whole `encoded` bytes; its value (or policy state's values) is checked to decode
    /// unless `validatingValue` is false (the sync layer's gate checks them, with the rest of the record).
    package static func decode(_ bytes: [UInt8], validatingValue: Bool = true) throws(ValueDecodingError) -> Record {
        var reader = ByteReader(bytes)
        return try decode(&reader, validateValue: validatingValue)
    }
}
