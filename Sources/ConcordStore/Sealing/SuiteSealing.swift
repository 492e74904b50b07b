import Sodium

/// How the records of one encrypted suite are sealed and opened with its key: the one place that
/// turns a key's name and record into what `data.mdb`, the journal, bundles, the sync protocol and
/// the hub hold, and back.
///
/// - A key is stored under its *row key*: 32 hex digits of the keyed BLAKE2b hash of the suite's and
///   the key's names, so what leaves the process and what the store holds show no name, and one
///   name has one last-writer-wins row (merging needs nothing else). A key with a merge policy has,
///   besides, one *contribution* per replica that wrote it — that replica's latest policy state —
///   under the row key followed by the replica's id (`contributionKey`), which readers join.
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

    /// The hex digits of a policy contribution's row key: the name's row key, then the id of the
    /// replica whose contribution it is.
    package static let contributionKeyLength = 64

    /// Whether `key` has the form of a row key (32 lowercase hex digits): the key a name's
    /// last-writer-wins record is stored under.
    package static func isRowKey(_ key: String) -> Bool { isHex(key, digits: rowKeyLength) }

    /// Whether `key` has the form of a policy contribution's row key (64 lowercase hex digits).
    package static func isContributionKey(_ key: String) -> Bool { isHex(key, digits: contributionKeyLength) }

    private static func isHex(_ key: String, digits count: Int) -> Bool {
        let digits = key.utf8
        return digits.count == count && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The row key of `origin`'s contribution to the policy key whose name's row key is `rowKey`: a
    /// counter's, max's, min's or set's state as that replica last wrote it. Only `origin` writes it,
    /// so it merges by last-writer-wins like any sealed record, and the name's contributions sort
    /// together, right after the name's own row.
    package static func contributionKey(rowKey: String, origin: ReplicaID) -> String { rowKey + origin.description }

    /// Why a sealed record may not be stored under `key`, as a replica without the suite's key can
    /// judge it; nil when it may. A sealed record is stored under a row key, or under a contribution's
    /// key, which ends in the replica that wrote it (its version's) and never holds a tombstone.
    package static func storageRefusal(key: String, record: Record) -> String? {
        if isRowKey(key) { return nil }
        guard isContributionKey(key) else {
            return
                "a sealed record must be stored under a key's keyed hash (32 hex digits), or a policy contribution's (64: the hash, then the replica that wrote it)"
        }
        let origin = record.version.replica.description
        guard key.hasSuffix(origin) else {
            return "a policy contribution's key ends in the replica that wrote it, but this one was written by \(origin): only that replica writes it"
        }
        guard !record.isTombstone else { return "a policy contribution holds a state, never a tombstone" }
        return nil
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

    /// The name and the record in the clear that the sealed `record` stored under `storedKey` holds,
    /// checked against where it is stored: a row key holds a last-writer-wins record of the name it
    /// hashes, a contribution's key a policy state of that name written by the replica it ends in.
    ///
    /// - Throws: `ValueDecodingError` when it does not open (`open`) or is stored where it does not belong.
    package func openStored(_ record: Record, storedKey: String) throws(ValueDecodingError) -> (name: String, record: Record) {
        let (name, opened) = try open(record, rowKey: storedKey)
        guard let name else { throw ValueDecodingError("a record in the clear where a sealed one belongs") }
        let rowKey = rowKey(for: name)
        if storedKey.utf8.count == Self.rowKeyLength {
            guard storedKey == rowKey else { throw ValueDecodingError("the sealed record holds the name of another key") }
            guard opened.isPlain else { throw ValueDecodingError("a policy state under a name's row key, where only a contribution's key holds one") }
        } else {
            guard storedKey == Self.contributionKey(rowKey: rowKey, origin: record.version.replica) else {
                throw ValueDecodingError("the sealed contribution holds the name of another key, or was written by another replica")
            }
            guard opened.state != nil else { throw ValueDecodingError("a policy contribution that holds no policy state") }
        }
        return (name, opened)
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
