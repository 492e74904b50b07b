import Sodium

/// How the records of one encrypted suite are sealed and opened with its key: the one place that
/// turns a key's name and record into what `data.mdb`, the journal, bundles, the sync protocol and
/// the hub hold, and back.
///
/// - A key is stored under its *row key*: 32 hex digits of the keyed BLAKE2b hash of the suite's and
///   the key's names, so what leaves the process and what the store holds show no name, and one
///   name always has one row (merging needs nothing else).
/// - A record is stored as `[flags 4][hlc 8][replica 16][nonce 24][ciphertext][tag 16]` (flags 5 for a
///   tombstone): its version stays readable (merging needs it), and the ciphertext holds
///   `[name length 2][name][the record's flags][the rest of the record in the clear]`.
/// - The associated data is the suite's name, the row key and the record's flags and version, so a
///   record moved to another key or suite, or replayed under another version, does not open.
///
/// ```swift
/// let sealing = SuiteSealing(suite: "secrets", key: .generate())
/// let rowKey = sealing.rowKey(for: "token")
/// let record = Record(version: Version(hlc: 1 << 16, replica: .zero), valueBytes: try ValueCodec.encode(.string("s3cret")))
/// let sealed = sealing.seal(record, name: "token", rowKey: rowKey)
/// let (name, opened) = try sealing.open(sealed, rowKey: rowKey)   // ("token", record)
/// ```
package struct SuiteSealing: Sendable {
    package let suite: String
    package let key: EncryptionKey

    /// The fewest bytes a sealed record's payload takes: the nonce and the tag.
    package static var minimumSealedBytes: Int { Libsodium.overhead }
    /// The hex digits of a row key.
    package static let rowKeyLength = 32

    /// Whether `key` has the form of a row key (32 lowercase hex digits): the only keys an
    /// encrypted suite's sealed records are stored under.
    package static func isRowKey(_ key: String) -> Bool {
        let digits = key.utf8
        return digits.count == rowKeyLength && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The most bytes a sealed record's payload may take when values may take `maxValueBytes`: the
    /// nonce and tag, the name (at most a key's bytes) with its length, the flags, an expiry's room
    /// and the value.
    package static func maximumSealedBytes(maxValueBytes: Int) -> Int {
        minimumSealedBytes + 2 + Names.maxKeyBytes + 1 + 8 + maxValueBytes
    }

    package init(suite: String, key: EncryptionKey) {
        self.suite = suite
        self.key = key
    }

    /// The row key the name `name` is stored under in this suite.
    package func rowKey(for name: String) -> String {
        var message = Array(suite.utf8)
        message.append(0)
        message.append(contentsOf: name.utf8)
        return Libsodium.keyedHash(message, key: key.namingKey, length: Self.rowKeyLength / 2).map { String($0, radix: 16).leftPadded(2) }.joined()
    }

    /// `record` of the key `name` (stored under `rowKey`) sealed, with the same version.
    package func seal(_ record: Record, name: String, rowKey: String) -> Record {
        let clear = record.encoded
        var message = ByteWriter(capacity: 3 + name.utf8.count + clear.count)
        message.u16(UInt16(name.utf8.count))
        message.append(Array(name.utf8))
        message.u8(clear[0])
        message.append(clear[Record.headerSize...])
        let tombstone = record.isPlain && record.isTombstone
        let sealed = Libsodium.seal(
            message.bytes, additionalData: additionalData(rowKey: rowKey, flags: tombstone ? 5 : 4, version: record.version), key: key.sealingKey)
        return Record(version: record.version, sealed: sealed, isTombstone: tombstone)
    }

    /// The name and the record in the clear that `record` (stored under `rowKey`) seals; a record in
    /// the clear is returned as it is, with no name.
    ///
    /// - Throws: `ValueDecodingError` when it does not open under this key (a byte changed, or it was
    ///   moved to another key, suite or version) or what it holds does not decode.
    package func open(_ record: Record, rowKey: String) throws(ValueDecodingError) -> (name: String?, record: Record) {
        guard let sealed = record.sealedBytes else { return (nil, record) }
        let flags: UInt8 = record.isTombstone ? 5 : 4
        guard let clear = Libsodium.open(sealed, additionalData: additionalData(rowKey: rowKey, flags: flags, version: record.version), key: key.sealingKey)
        else {
            throw ValueDecodingError(
                "the sealed record does not open under the suite's key: its bytes were changed, or it was moved from another key or version")
        }
        var reader = ByteReader(clear)
        let name = try reader.string(lengthBytes: 2)
        let innerFlags = try reader.u8()
        guard (innerFlags == 1) == record.isTombstone, innerFlags < 4 else {
            throw ValueDecodingError("a sealed record holding record flags \(innerFlags)")
        }
        var header = ByteWriter(capacity: Record.headerSize + reader.remaining)
        header.u8(innerFlags)
        header.u64(record.version.hlc)
        header.append(record.version.replica.bytes)
        header.append(Array(try reader.take(reader.remaining)))
        return (name, try Record.decode(header.bytes))
    }

    /// Checks that `record`, a sealed record from outside stored under `rowKey`, opens under this key
    /// and holds the name whose row key it is stored under: what merging it asks where the key is.
    ///
    /// - Throws: `ValueDecodingError` when it does not (a byte changed, or it was moved to another key,
    ///   suite or version).
    package func checkOpens(_ record: Record, rowKey: String) throws(ValueDecodingError) {
        let (name, _) = try open(record, rowKey: rowKey)
        guard let name, self.rowKey(for: name) == rowKey else { throw ValueDecodingError("the sealed record holds the name of another key") }
    }

    private func additionalData(rowKey: String, flags: UInt8, version: Version) -> [UInt8] {
        var out = ByteWriter(capacity: 64 + suite.utf8.count)
        out.u8(UInt8(suite.utf8.count))
        out.append(Array(suite.utf8))
        out.u8(UInt8(rowKey.utf8.count))
        out.append(Array(rowKey.utf8))
        out.u8(flags)
        out.u64(version.hlc)
        out.append(version.replica.bytes)
        return out.bytes
    }
}
