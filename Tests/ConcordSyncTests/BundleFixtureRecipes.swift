import Concord
import Foundation

/// How each file in fixtures/bundles is made. `BundleTests` checks the committed files against
/// these recipes (so a format change cannot slip by) and regenerates them when
/// CONCORD_WRITE_FIXTURES=1 is set.
enum BundleFixtureRecipes {
    static let source = ReplicaID(bytes: [UInt8](repeating: 0x11, count: 16))!
    static let peer = ReplicaID(bytes: [UInt8](repeating: 0x22, count: 16))!
    static let created: UInt64 = 1_767_225_600_000 // 2026-01-01T00:00:00Z

    /// The source's history mark the valid bundle is bound to, and the peer's mark its knowledge names.
    static let mark = HistoryMark(id: [UInt8](repeating: 0x33, count: 16), seq: 5)!
    static let peerMark = HistoryMark(id: [UInt8](repeating: 0x44, count: 16), seq: 9)!

    /// A small, well-formed bundle: two values and a tombstone in suite "prefs", bound to `mark`.
    static func valid() -> SyncBundle {
        func version(_ n: UInt64) -> Version { Version(hlc: (created + n) << 16, replica: source) }
        let entries = [
            RemoteEntry(seq: 1, suite: "prefs", key: "theme", record: try! Record(version: version(1), value: .string("dark"))),
            RemoteEntry(seq: 3, suite: "prefs", key: "fontSize", record: try! Record(version: version(3), value: .int(14))),
            RemoteEntry(seq: 5, suite: "prefs", key: "legacy", record: Record(version: version(5), valueBytes: nil))
        ]
        let batch = RemoteBatch(
            source: source, selection: .all, fromSeq: 0, toSeq: 5, entries: entries,
            knowledge: PeerKnowledge(items: [.init(replica: peer, scope: .allSuites, seq: 7, mark: peerMark)]), mark: mark)
        return SyncBundle(batch: batch, createdMilliseconds: created, liveMarks: [mark])
    }

    /// The valid bundle with a fourth entry, a value that expires a day after the bundle was made (so
    /// it has expired wherever the fixture is imported now): what format 6 added.
    static func expiring() -> SyncBundle {
        let b = valid().batch
        let session = RemoteEntry(
            seq: 4, suite: "prefs", key: "session",
            record: Record(
                version: Version(hlc: (created + 4) << 16, replica: source), valueBytes: try! ValueCodec.encode(.string("token")),
                expiryMilliseconds: created + 86_400_000))
        let entries = [b.entries[0], b.entries[1], session, b.entries[2]]
        let batch = RemoteBatch(
            source: b.source, selection: b.selection, fromSeq: b.fromSeq, toSeq: b.toSeq, entries: entries, knowledge: b.knowledge, mark: b.mark)
        return SyncBundle(batch: batch, createdMilliseconds: created, liveMarks: [mark])
    }

    /// `bytes` of a bundle of this format, stamped `version` instead (the layout of formats 5 and 6 is one).
    /// The valid bundle with a fourth entry, a sealed record of an encrypted suite under its row key
    /// (its seal's bytes a fixed pattern: a replica without the key checks only its form): what format
    /// 7 added.
    static func sealed() -> SyncBundle {
        let b = valid().batch
        let secret = RemoteEntry(
            seq: 4, suite: "secrets", key: String(repeating: "5a", count: 16),
            record: Record(
                version: Version(hlc: (created + 4) << 16, replica: source), sealed: (0..<72).map { UInt8(truncatingIfNeeded: $0 &* 37) },
                isTombstone: false))
        let entries = [b.entries[0], b.entries[1], b.entries[2], secret]
        let batch = RemoteBatch(
            source: b.source, selection: b.selection, fromSeq: b.fromSeq, toSeq: b.toSeq, entries: entries, knowledge: b.knowledge, mark: b.mark)
        return SyncBundle(batch: batch, createdMilliseconds: created, liveMarks: [mark])
    }

    static func restamped(_ bytes: [UInt8], version: UInt16) -> [UInt8] {
        var out = bytes
        out[versionOffset] = UInt8(version >> 8)
        out[versionOffset + 1] = UInt8(version & 0xff)
        return resealed(out)
    }

    /// The valid bundle's contents as releases before history marks wrote them (formats 1 to 4 share
    /// this layout; the version field says what its records may hold).
    static func legacyEncoded(_ bundle: SyncBundle, version: UInt16) -> [UInt8] {
        let batch = bundle.batch
        var w = ByteWriter()
        w.append(SyncBundle.magic)
        w.u16(version)
        w.u16(0)
        w.u64(0)
        w.append(batch.source.bytes)
        w.u64(batch.fromSeq)
        w.u64(batch.toSeq)
        w.u64(bundle.createdMilliseconds)
        w.u16(UInt16(batch.selection.suites?.count ?? 0))
        for s in batch.selection.suites ?? [] { w.string(s, lengthBytes: 1) }
        w.u32(UInt32(batch.knowledge.items.count))
        for item in batch.knowledge.items {
            w.append(item.replica.bytes)
            w.string(item.scope.suiteName ?? "", lengthBytes: 1)
            w.u64(item.seq)
        }
        w.u64(UInt64(batch.entries.count))
        for e in batch.entries {
            w.u64(e.seq)
            w.string(e.suite, lengthBytes: 1)
            w.string(e.key, lengthBytes: 2)
            w.u32(UInt32(e.record.encoded.count))
            w.append(e.record.encoded)
        }
        w.patchU64(UInt64(w.count + 4), at: 12)
        w.u32(CRC32.checksum(w.bytes))
        return w.bytes
    }

    /// Offsets in the valid bundle: the version field, and the entry count.
    static let versionOffset = 8
    static var entryCountOffset: Int {
        // header 60, suite count 2, mark 1 + 24, live marks 2 + 8 + 24, disproven marks 2,
        // knowledge count 4, one knowledge item 16 + 1 + 8 + 1 + 24
        8 + 2 + 2 + 8 + 16 + 8 + 8 + 8 + 2 + (1 + 24) + (2 + 8 + 24) + 2 + 4 + (16 + 1 + 8 + 1 + 24)
    }

    /// Rewrites the trailing CRC-32, so a deliberate change passes the checksum and meets the check it targets.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var out = Array(bytes.dropLast(4))
        let crc = CRC32.checksum(out)
        out += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xff), UInt8(crc >> 8 & 0xff), UInt8(crc & 0xff)]
        return out
    }

    /// Every fixture: file name, bytes, and the error code import must refuse it with (nil: it imports).
    static func all() -> [(name: String, bytes: [UInt8], refusal: ConcordError.Code?)] {
        let good = valid().encoded()
        var flipped = good
        flipped[good.count - 12] ^= 0x04 // one bit inside the last record
        var magic = good
        magic[0] = UInt8(ascii: "D") // "DONCORDB"
        let first = legacyEncoded(valid(), version: 1) // what the first release wrote
        let second = legacyEncoded(valid(), version: 2) // exact dates, no policy records
        let third = legacyEncoded(valid(), version: 3) // policy records, no floats or UUIDs
        let fourth = legacyEncoded(valid(), version: 4) // floats and UUIDs, no history marks
        let fifth = restamped(good, version: 5) // history marks, no expiring records
        let expiringAsFifth = restamped(expiring().encoded(), version: 5) // an expiring record a format-5 bundle cannot hold
        let sixth = restamped(good, version: 6) // expiring records, no sealed ones
        let sealedAsSixth = restamped(sealed().encoded(), version: 6) // a sealed record a format-6 bundle cannot hold
        var newer = good
        newer[versionOffset + 1] = UInt8(SyncBundle.formatVersion + 1) // a format newer than this Concord reads
        var huge = good
        for i in 0..<8 { huge[entryCountOffset + i] = [0, 0, 1, 0, 0, 0, 0, 0][i] } // 2^40 entries
        return [
            ("valid.bundle", good, nil),
            ("valid-format1.bundle", first, nil),
            ("valid-format2.bundle", second, nil),
            ("valid-format3.bundle", third, nil),
            ("valid-format4.bundle", fourth, nil),
            ("valid-format5.bundle", fifth, nil),
            ("expiring.bundle", expiring().encoded(), nil),
            ("expiring-in-format5.bundle", expiringAsFifth, .malformed),
            ("valid-format6.bundle", sixth, nil),
            ("sealed.bundle", sealed().encoded(), nil),
            ("sealed-in-format6.bundle", sealedAsSixth, .malformed),
            ("truncated.bundle", Array(good.prefix(good.count - 30)), .truncated),
            ("bit-flipped.bundle", flipped, .checksumMismatch),
            ("wrong-magic.bundle", magic, .notABundle),
            ("newer-version.bundle", resealed(newer), .newerBundle),
            ("huge-count.bundle", resealed(huge), .malformed)
        ]
    }
}
