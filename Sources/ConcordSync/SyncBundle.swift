/// A batch of changes as a self-describing file, so replicas that cannot open each other's
/// directory can sync through any file transport (see the architecture document, "Delta sync").
///
/// Format version 6, every integer big-endian. Versions 1 to 4 have the same layout without the mark,
/// the live marks and the knowledge items' marks (version 2 says its records may hold exact dates,
/// version 3 that they may be policy records — flags 2, a counter's, max's, min's or set's state — which
/// a format-2 reader cannot merge, version 4 that their values may hold floats and UUIDs (codec tags 11
/// and 12), which a format-3 reader cannot decode, so it refuses the bundle as newer up front instead of
/// failing on a record); version 5 binds the batch to the source's history (the architecture document,
/// "Trust and time"); version 6 says its records may expire (record flags 3, or a policy base of kind
/// 3), which a format-5 reader cannot decode:
/// ```
/// magic "CONCORDB" (8) | format version u16 | flags u16 (0) | total length u64 (the whole file)
/// source replica (16) | from seq u64 | to seq u64 | created ms u64
/// suite count u16 (0 = every suite) | per suite: length u8, name
/// mark: present u8 (0 or 1) | seq u64, id (16)       — the source's mark covering the last seq
/// live mark count u16 | pruned through u64 | per mark: seq u64, id (16)   — every mark the source holds
/// disproven count u16 | per mark: seq u64, id (16)   — marks its peers' claims named that it lacks
/// knowledge count u32 | per item: replica (16), scope length u8 (0 = every suite), scope, seq u64,
///                                 mark present u8 | seq u64, id (16)
/// entry count u64 | per entry: seq u64, suite length u8, suite, key length u16, key, record length u32, record
/// CRC-32 u32 of every byte before it
/// ```
/// A record is the store's record encoding (flags, hlc, replica, value or policy state), byte for byte.
///
/// <!-- assume:
/// let delta = try DeltaReader.read(from: laptop, for: phone.replicaID, alreadyMerged: PeerKnowledge(received: try phone.peerCursors()))
/// let now = UInt64(Date().timeIntervalSince1970 * 1000)
/// -->
/// ```swift
/// let bundle = SyncBundle(batch: delta.batch, createdMilliseconds: now)
/// try BundleExchange.write(bundle.encoded(), to: "/media/usb/laptop.concord")
/// let back = try SyncBundle.decode(bundle.encoded())
/// ```
package struct SyncBundle: Hashable, Sendable {
    /// The first eight bytes of every bundle.
    package static let magic: [UInt8] = Array("CONCORDB".utf8)
    /// The format this Concord writes and the newest it reads.
    package static let formatVersion: UInt16 = 7
    /// Bytes of the fixed header, the three counts and the checksum: the smallest possible bundle (of
    /// format 1 to 4; one of format 5 or 6 holds 11 bytes more).
    static let minimumSize = 8 + 2 + 2 + 8 + 16 + 8 + 8 + 8 + 2 + 4 + 8 + 4
    /// The smallest possible entry: seq, a 1-byte suite, a 1-byte key, a tombstone record.
    static let minimumEntrySize = 8 + 1 + 1 + 2 + 1 + 4 + Record.headerSize
    /// The smallest knowledge item: a replica, an empty scope name, a seq (and, in format 5, a mark flag).
    static let minimumKnowledgeItemSize = 16 + 1 + 8

    package let batch: RemoteBatch
    /// When the bundle was made (wall-clock milliseconds since 1970).
    package let createdMilliseconds: UInt64
    /// Every mark the source held when the bundle was made (an export's; none in a frame of the sync
    /// protocol): an importer whose cursor on the source is bound to a mark not among them knows the
    /// source went back in time.
    package let liveMarks: [HistoryMark]
    /// The highest seq of a mark the source had pruned: a missing mark at or below it may just be pruned.
    package let marksPrunedThrough: UInt64
    /// Marks that claims of the source's peers named and the source found it does not hold: an importer
    /// whose cursor is bound to one learns that the source went back in time.
    package let disprovenMarks: [HistoryMark]

    package init(
        batch: RemoteBatch, createdMilliseconds: UInt64, liveMarks: [HistoryMark] = [], marksPrunedThrough: UInt64 = 0,
        disprovenMarks: [HistoryMark] = []
    ) {
        self.batch = batch
        self.createdMilliseconds = createdMilliseconds
        self.liveMarks = liveMarks
        self.marksPrunedThrough = marksPrunedThrough
        self.disprovenMarks = disprovenMarks
    }

    /// The bundle's bytes.
    package func encoded(progress: ProgressMeter? = nil) -> [UInt8] {
        var w = ByteWriter()
        w.append(Self.magic)
        w.u16(Self.formatVersion)
        w.u16(0)
        let lengthAt = w.count
        w.u64(0) // total length, filled in below
        w.append(batch.source.bytes)
        w.u64(batch.fromSeq)
        w.u64(batch.toSeq)
        w.u64(createdMilliseconds)
        let suites = batch.selection.suites ?? []
        w.u16(UInt16(suites.count))
        for s in suites { w.string(s, lengthBytes: 1) }
        Self.encode(batch.mark, into: &w)
        w.u16(UInt16(liveMarks.count))
        w.u64(marksPrunedThrough)
        for mark in liveMarks { w.append(mark.encoded) }
        w.u16(UInt16(disprovenMarks.count))
        for mark in disprovenMarks { w.append(mark.encoded) }
        w.u32(UInt32(batch.knowledge.items.count))
        for item in batch.knowledge.items {
            w.append(item.replica.bytes)
            w.string(item.scope.suiteName ?? "", lengthBytes: 1)
            w.u64(item.seq)
            Self.encode(item.mark, into: &w)
        }
        w.u64(UInt64(batch.entries.count))
        for (index, e) in batch.entries.enumerated() {
            if index & 1023 == 0 { progress?.update(index) }
            w.u64(e.seq)
            w.string(e.suite, lengthBytes: 1)
            w.string(e.key, lengthBytes: 2)
            let record = e.record.encoded
            w.u32(UInt32(record.count))
            w.append(record)
        }
        w.patchU64(UInt64(w.count + 4), at: lengthAt)
        w.u32(CRC32.checksum(w.bytes))
        return w.bytes
    }

    private static func encode(_ mark: HistoryMark?, into w: inout ByteWriter) {
        w.u8(mark == nil ? 0 : 1)
        if let mark { w.append(mark.encoded) }
    }
}
