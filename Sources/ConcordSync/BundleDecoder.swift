extension SyncBundle {
    /// Parses and validates a whole bundle: magic, version, length, checksum, every count, name, seq
    /// and record. Nothing is returned unless all of it is sound, so an import that starts has a bundle
    /// it can apply in full.
    ///
    /// <!-- assume: let bytes: [UInt8] = [] -->
    /// ```swift
    /// do { let bundle = try SyncBundle.decode(bytes) }
    /// catch { print(error) }   // e.g. "the checksum does not match: …"
    /// ```
    package static func decode(_ bytes: [UInt8], limits: BundleLimits = BundleLimits()) throws(ConcordError) -> SyncBundle {
        let prefix = min(bytes.count, magic.count)
        guard Array(bytes[..<prefix]) == Array(magic[..<prefix]) else {
            let shown = bytes.prefix(8).map { String($0, radix: 16).leftPadded(2) }.joined(separator: " ")
            throw ConcordError.bundle(.notABundle, "not a Concord bundle: it starts with \(shown), not \"CONCORDB\"")
        }
        guard bytes.count >= minimumSize else {
            throw ConcordError.bundle(.truncated, "the file is \(bytes.count) bytes, shorter than the smallest bundle (\(minimumSize) bytes): it was cut short")
        }
        var r = BundleReader(bytes)
        r.offset = magic.count
        let version = try r.u16("the format version")
        guard version <= formatVersion else {
            throw ConcordError.bundle(
                .newerBundle, "format version \(version) is newer than this Concord reads (\(formatVersion)); upgrade Concord on this side")
        }
        guard version >= 1 else { throw ConcordError.bundle(.malformed, "format version 0 does not exist") }
        let flags = try r.u16("the flags")
        let total = try r.u64("the total length")
        guard total <= UInt64(limits.maxBytes) else {
            throw ConcordError.bundle(.oversized, "the bundle says it is \(total) bytes, over the limit of \(limits.maxBytes) bytes")
        }
        guard total >= UInt64(bytes.count) else {
            throw ConcordError.bundle(.malformed, "\(UInt64(bytes.count) - total) unexpected bytes follow the end of the bundle (\(total) bytes)")
        }
        guard total == UInt64(bytes.count) else {
            throw ConcordError.bundle(.truncated, "the file is \(bytes.count) bytes but the bundle is \(total): it was cut short (copy it again)")
        }
        var tail = ByteReader(Array(bytes[(bytes.count - 4)...]))
        let stored = (try? tail.u32()) ?? 0 // four bytes are there: the size was checked above
        let computed = CRC32.checksum(bytes[..<(bytes.count - 4)])
        guard stored == computed else {
            throw ConcordError.bundle(
                .checksumMismatch,
                "the checksum does not match (stored \(hex32(stored)), computed \(hex32(computed))): the file was damaged in storage or transit")
        }
        guard flags == 0 else { throw ConcordError.bundle(.malformed, "unknown flags \(flags) in a version-1 bundle") }
        r.end = bytes.count - 4

        guard let source = ReplicaID(bytes: try r.take(16, "the source replica")), source != .zero else {
            throw ConcordError.bundle(.malformed, "the source replica id is all zeros")
        }
        let fromSeq = try r.u64("the first seq")
        let toSeq = try r.u64("the last seq")
        guard fromSeq <= toSeq else { throw ConcordError.bundle(.malformed, "the seq range \(fromSeq)…\(toSeq) runs backwards") }
        let created = try r.u64("the creation time")

        let suiteCount = Int(try r.u16("the suite count"))
        try r.checkCount(suiteCount, minimumEach: 2, what: "suite names")
        var suites: [String] = []
        for i in 0..<suiteCount {
            let name = try r.string(width: 1, "suite name \(i + 1)")
            try validSuite(name, "suite name \(i + 1)")
            guard !suites.contains(name) else { throw ConcordError.bundle(.malformed, "suite \(quoted(name)) is listed twice") }
            suites.append(name)
        }
        let selection = suites.isEmpty ? SyncSelection.all : SyncSelection(checked: suites.sorted())

        let marked = version >= 5 // format 5 binds the batch and the knowledge to history marks
        var mark: HistoryMark?
        var liveMarks: [HistoryMark] = []
        var prunedThrough: UInt64 = 0
        var disproven: [HistoryMark] = []
        if marked {
            mark = try r.mark("the batch's mark")
            if let mark, mark.seq < toSeq {
                throw ConcordError.bundle(.malformed, "the batch's mark covers seq \(mark.seq), before its last seq \(toSeq)")
            }
            let liveCount = Int(try r.u16("the live mark count"))
            prunedThrough = try r.u64("the pruned seq")
            try r.checkCount(liveCount, minimumEach: HistoryMark.size, what: "live marks")
            for i in 0..<liveCount { liveMarks.append(try r.markBytes("live mark \(i + 1)")) }
            let disprovenCount = Int(try r.u16("the disproven mark count"))
            try r.checkCount(disprovenCount, minimumEach: HistoryMark.size, what: "disproven marks")
            for i in 0..<disprovenCount { disproven.append(try r.markBytes("disproven mark \(i + 1)")) }
        }
        let knowledgeCount = Int(try r.u32("the knowledge count"))
        try r.checkCount(knowledgeCount, minimumEach: minimumKnowledgeItemSize + (marked ? 1 : 0), what: "knowledge items")
        var items: [PeerKnowledge.Item] = []
        for i in 0..<knowledgeCount {
            let replica = ReplicaID(bytes: try r.take(16, "knowledge item \(i + 1)"))!
            let scopeName = try r.string(width: 1, "knowledge item \(i + 1)")
            if !scopeName.isEmpty { try validSuite(scopeName, "the scope of knowledge item \(i + 1)") }
            let seq = try r.u64("knowledge item \(i + 1)")
            let itemMark = marked ? try r.mark("the mark of knowledge item \(i + 1)") : nil
            if let itemMark, itemMark.seq < seq {
                throw ConcordError.bundle(.malformed, "knowledge item \(i + 1) claims seq \(seq) with a mark covering only seq \(itemMark.seq)")
            }
            items.append(PeerKnowledge.Item(replica: replica, scope: scopeName.isEmpty ? .allSuites : .suite(scopeName), seq: seq, mark: itemMark))
        }

        let entryCount = try r.u64("the entry count")
        let room = UInt64(r.remaining / minimumEntrySize)
        guard entryCount <= room else {
            throw ConcordError.bundle(
                .malformed, "the bundle claims \(entryCount) entries but its remaining \(r.remaining) bytes could hold at most \(room): the count is damaged")
        }
        guard entryCount <= UInt64(limits.maxEntries) else {
            throw ConcordError.bundle(.oversized, "the bundle holds \(entryCount) entries, over the limit of \(limits.maxEntries)")
        }
        var entries: [RemoteEntry] = []
        entries.reserveCapacity(Int(entryCount))
        var keys = Set<SuiteKey>(minimumCapacity: Int(entryCount))
        var previous = fromSeq
        let gate = RecordGate(maxValueBytes: limits.maxValueBytes)
        for i in 0..<Int(entryCount) {
            func what() -> String { "entry \(i + 1) of \(entryCount)" }
            let seq = try r.u64(what())
            guard seq > previous, seq <= toSeq else {
                throw ConcordError.bundle(
                    .malformed, "\(what()) has seq \(seq), outside the bundle's range \(fromSeq)…\(toSeq) or not after the entry before it")
            }
            previous = seq
            let suite = try r.string(width: 1, what())
            guard selection.includes(suite) else {
                throw ConcordError.bundle(.malformed, "\(what()) is in suite \(quoted(suite)), which the bundle does not cover")
            }
            let key = try r.string(width: 2, what())
            guard keys.insert(SuiteKey(suite: suite, key: key)).inserted else {
                throw ConcordError.bundle(.malformed, "\(what()): key \(quoted(key)) of suite \(quoted(suite)) appears twice")
            }
            let length = Int(try r.u32(what()))
            guard length >= Record.headerSize, length <= r.remaining else {
                throw ConcordError.bundle(.malformed, "\(what()) says its record is \(length) bytes, but \(r.remaining) bytes remain")
            }
            let recordBytes = try r.take(length, what())
            let record: Record
            do { record = try Record.decode(recordBytes, validatingValue: false) } catch {
                throw ConcordError.bundle(.malformed, "the record of \(what()) (\(quoted(suite))/\(quoted(key))) does not decode: \(error)")
            }
            if version < 7, record.isSealed {
                throw ConcordError.bundle(
                    .malformed, "the record of \(what()) (\(quoted(suite))/\(quoted(key))) is sealed, which a bundle of format \(version) cannot hold")
            }
            if version < 6, record.expiresAtMilliseconds != nil {
                throw ConcordError.bundle(
                    .malformed, "the record of \(what()) (\(quoted(suite))/\(quoted(key))) expires, which a bundle of format \(version) cannot hold")
            }
            // Names, the value's size and content, versions: the gate every record from outside passes.
            if let refused = gate.refusal(suite: suite, key: key, seq: seq, record: record) {
                throw ConcordError.bundle(refused.refusal == .valueSize ? .oversized : .malformed, "\(what()) is refused: \(refused)")
            }
            entries.append(RemoteEntry(seq: seq, suite: suite, key: key, record: record))
        }
        guard r.remaining == 0 else { throw ConcordError.bundle(.malformed, "\(r.remaining) unexpected bytes after the last entry") }
        let batch = RemoteBatch(
            source: source, selection: selection, fromSeq: fromSeq, toSeq: toSeq,
            entries: entries, knowledge: PeerKnowledge(items: items), mark: mark)
        return SyncBundle(batch: batch, createdMilliseconds: created, liveMarks: liveMarks, marksPrunedThrough: prunedThrough, disprovenMarks: disproven)
    }

    private static func validSuite(_ name: String, _ what: String) throws(ConcordError) {
        do { try Names.validateSuite(name) } catch { throw ConcordError.bundle(.malformed, "\(what) is invalid: \(error)") }
    }

    static func quoted(_ s: String) -> String {
        let shown = s.count > 60 ? String(s.prefix(60)) + "…" : s
        return "\"" + shown.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined() + "\""
    }

    private static func hex32(_ v: UInt32) -> String { "0x" + String(v, radix: 16).leftPadded(8) }
}

/// The bundle's fields, read with the store's `ByteReader` up to `end` (the checksum is not a field),
/// each read naming what it reads, so a short or damaged bundle says which field was cut.
struct BundleReader {
    private var reader: ByteReader
    var end: Int

    init(_ bytes: [UInt8]) {
        reader = ByteReader(bytes)
        end = bytes.count
    }

    var offset: Int {
        get { reader.offset }
        set { reader.offset = newValue }
    }

    var remaining: Int { end - reader.offset }

    mutating func take(_ n: Int, _ what: @autoclosure () -> String) throws(ConcordError) -> [UInt8] {
        guard n <= remaining else { throw ConcordError.bundle(.malformed, "\(what()) needs \(n) bytes but only \(remaining) remain") }
        do { return Array(try reader.take(n)) } catch { throw ConcordError.bundle(.malformed, "\(what()): \(error)") }
    }

    mutating func u16(_ what: @autoclosure () -> String) throws(ConcordError) -> UInt16 {
        try read(2, what()) { (r: inout ByteReader) throws(ValueDecodingError) in try r.u16() }
    }
    mutating func u32(_ what: @autoclosure () -> String) throws(ConcordError) -> UInt32 {
        try read(4, what()) { (r: inout ByteReader) throws(ValueDecodingError) in try r.u32() }
    }
    mutating func u64(_ what: @autoclosure () -> String) throws(ConcordError) -> UInt64 {
        try read(8, what()) { (r: inout ByteReader) throws(ValueDecodingError) in try r.u64() }
    }

    /// A name preceded by its byte count in `width` (1 or 2) bytes.
    mutating func string(width: Int, _ what: @autoclosure () -> String) throws(ConcordError) -> String {
        let n = width == 1 ? Int(try read(1, what()) { (r: inout ByteReader) throws(ValueDecodingError) in try r.u8() }) : Int(try u16(what()))
        guard n <= remaining else { throw ConcordError.bundle(.malformed, "\(what()) needs \(n) bytes but only \(remaining) remain") }
        let bytes: ArraySlice<UInt8>
        do { bytes = try reader.take(n) } catch { throw ConcordError.bundle(.malformed, "\(what()): \(error)") }
        guard let s = ByteReader.utf8String(bytes) else {
            throw ConcordError.bundle(.malformed, "\(what()) holds a name that is not UTF-8")
        }
        return s
    }

    private mutating func read<T>(_ width: Int, _ what: @autoclosure () -> String, _ body: (inout ByteReader) throws(ValueDecodingError) -> T)
        throws(ConcordError) -> T
    {
        guard width <= remaining else { throw ConcordError.bundle(.malformed, "\(what()) needs \(width) bytes but only \(remaining) remain") }
        do { return try body(&reader) } catch { throw ConcordError.bundle(.malformed, "\(what()): \(error)") }
    }

    /// A history mark: its seq and 16 bytes.
    mutating func markBytes(_ what: @autoclosure () -> String) throws(ConcordError) -> HistoryMark {
        let seq = try u64(what())
        return HistoryMark(id: try take(16, what()), seq: seq)!
    }

    /// A history mark preceded by a presence byte (0: none, 1: a mark follows).
    mutating func mark(_ what: @autoclosure () -> String) throws(ConcordError) -> HistoryMark? {
        let present = try read(1, what()) { (r: inout ByteReader) throws(ValueDecodingError) in try r.u8() }
        switch present {
        case 0: return nil
        case 1: return try markBytes(what())
        default: throw ConcordError.bundle(.malformed, "\(what()) has a presence byte of \(present)")
        }
    }

    /// Refuses a count that the remaining bytes cannot hold (before anything is allocated for it).
    func checkCount(_ count: Int, minimumEach: Int, what: String) throws(ConcordError) {
        guard count <= remaining / minimumEach else {
            throw ConcordError.bundle(.malformed, "the bundle claims \(count) \(what) but only \(remaining) bytes remain: the count is damaged")
        }
    }
}
