/// One message of the sync protocol (see the architecture document, "Sync protocol").
///
/// On the stream every frame is `kind u8 | payload length u32 | payload`. A batch's payload is a
/// bundle (`SyncBundle`: its own length, checksum, limits and duplicate-key checks); a hello is a
/// short header followed by an empty bundle describing the sender; the other payloads are a few
/// integers closed by a CRC-32 over the kind and the payload before it.
///
/// ```swift
/// let bytes = SyncFrame.announce(seq: 42).encoded()
/// ```
package enum SyncFrame: Sendable, Equatable {
    /// The first frame each side sends.
    case hello(SyncHello)
    /// Journal entries the receiver lacks, merged in one write transaction and acknowledged.
    case batch(RemoteBatch)
    /// What merging the last batch did.
    case ack(SyncAck)
    /// The sender has no more batches this round.
    case end
    /// The sender's last journal seq is now `seq`: it sends this before a batch reaching past what it
    /// announced before (its hello's last seq at first), and a live server sends it after a commit of
    /// its own (pull). A batch may not end past the last seq its sender announced.
    case announce(seq: UInt64)
    /// The sender gives up, saying why; it closes the stream next.
    case failure(ConcordError)
    /// What the sender found checking the other side's claims about its history (after the hellos).
    case verdict(SyncVerdict)

    enum Kind: UInt8 {
        case hello = 1, batch = 2, ack = 3, end = 4, announce = 5, failure = 6, verdict = 7
    }

    /// Bytes before the payload.
    static let headerSize = 5

    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        let kind: Kind
        switch self {
        case .hello(let hello):
            kind = .hello
            w.append(SyncHello.magic)
            w.u16(hello.version)
            w.u16(hello.flags)
            w.u32(CRC32.checksum([kind.rawValue] + w.bytes))
            let empty = RemoteBatch(
                source: hello.replica, selection: hello.selection, fromSeq: hello.lastSeq, toSeq: hello.lastSeq,
                entries: [], knowledge: hello.knowledge)
            w.append(SyncBundle(batch: empty, createdMilliseconds: hello.milliseconds).encoded())
        case .batch(let batch):
            kind = .batch
            w.append(SyncBundle(batch: batch, createdMilliseconds: 0).encoded())
        case .ack(let ack):
            kind = .ack
            ack.encode(into: &w)
        case .end:
            kind = .end
        case .announce(let seq):
            kind = .announce
            w.u64(seq)
        case .failure(let error):
            kind = .failure
            w.u8(error.code.wireByte)
            w.string(String(decoding: Array(error.message.utf8.prefix(60_000)), as: UTF8.self), lengthBytes: 2)
        case .verdict(let verdict):
            kind = .verdict
            verdict.encode(into: &w)
        }
        if kind != .hello && kind != .batch { w.u32(CRC32.checksum([kind.rawValue] + w.bytes)) }
        var out = ByteWriter(capacity: Self.headerSize + w.count)
        out.u8(kind.rawValue)
        out.u32(UInt32(w.count))
        out.append(w.bytes)
        return out.bytes
    }

    /// Decodes one frame's payload (the header already read), checking all of it.
    package static func decode(kind rawKind: UInt8, payload: [UInt8], limits: BundleLimits) throws(ConcordError) -> SyncFrame {
        guard let kind = Kind(rawValue: rawKind) else {
            throw ConcordError.session(
                .malformed, "a frame of unknown kind \(rawKind): the peer is not speaking the Concord sync protocol, or the stream is damaged")
        }
        switch kind {
        case .hello: return .hello(try SyncHello.decode(payload, limits: limits))
        case .batch: return .batch(try bundle(payload, limits: limits, refusal: "a batch was refused, so nothing of it was merged").batch)
        default: break
        }
        guard payload.count >= 4 else { throw ConcordError.session(.malformed, "a \(kind) frame of \(payload.count) bytes is too short to hold its checksum") }
        let body = Array(payload[..<(payload.count - 4)])
        var tail = ByteReader(Array(payload[(payload.count - 4)...]))
        let stored = (try? tail.u32()) ?? 0
        guard stored == CRC32.checksum([rawKind] + body) else {
            throw ConcordError.session(.malformed, "the checksum of a \(kind) frame does not match: the stream was damaged in transit")
        }
        var r = ByteReader(body)
        do throws(ValueDecodingError) {
            let frame: SyncFrame
            switch kind {
            case .ack: frame = .ack(try SyncAck.decode(&r))
            case .end: frame = .end
            case .announce: frame = .announce(seq: try r.u64())
            case .failure:
                let code = try r.u8()
                let message = try r.string(lengthBytes: 2)
                frame = .failure(ConcordError.session(ConcordError.Code(wireByte: code), message))
            case .verdict: frame = .verdict(try SyncVerdict.decode(&r))
            case .hello, .batch: preconditionFailure("decoded above")
            }
            guard r.isAtEnd else { throw ValueDecodingError("\(r.remaining) unexpected bytes at its end") }
            return frame
        } catch {
            throw ConcordError.session(.malformed, "a \(kind) frame does not decode: \(error)")
        }
    }

    /// A bundle carried in a frame, validated by the bundle decoder; `refusal` begins the message when it is not sound.
    static func bundle(_ bytes: [UInt8], limits: BundleLimits, refusal: String) throws(ConcordError) -> SyncBundle {
        do { return try SyncBundle.decode(bytes, limits: limits) } catch {
            throw ConcordError.session(error.code == .oversized ? .oversized : .malformed, "\(refusal): \(error.message)")
        }
    }
}

/// What a side says about itself when a session opens.
///
/// <!-- assume: let known: PeerKnowledge = given() -->
/// ```swift
/// let hello = SyncHello(replica: store.replicaID, selection: .all, knowledge: known, lastSeq: 12)
/// ```
package struct SyncHello: Sendable, Equatable {
    /// The first bytes of a hello's payload.
    static let magic: [UInt8] = Array("CONCORDP".utf8)
    /// The protocol version this Concord speaks, and the newest it accepts. Version 2: a batch ends at
    /// or before the last seq its sender announced (its hello's, raised by `announce` frames). Version 3
    /// binds cursors to history marks: the hello's knowledge carries them, acknowledgements carry the
    /// receiver's mark, and each side sends a verdict on the other's claims after the hellos. Version 4
    /// carries records that expire (record flags 3; batches are bundles of format 6). Version 5 carries
    /// sealed records of encrypted suites (record flags 4 and 5; batches are bundles of format 7).
    package static let currentVersion: UInt16 = 5
    /// The oldest version accepted: a version-1 peer sends batches past what its hello announced, which
    /// this side refuses (they could move its cursors past changes it never received), a version-2
    /// peer cannot prove its cursors (it would skip what a replica restored from a backup hands out
    /// again), a version-3 peer cannot merge an expiring record and a version-4 peer a sealed one (it
    /// would refuse the whole batch).
    package static let minimumVersion: UInt16 = 5

    package var version = SyncHello.currentVersion
    /// The sender's replica.
    package let replica: ReplicaID
    /// The suites the session covers (the client asks; the server answers with what it will serve).
    package let selection: SyncSelection
    /// What the sender has merged of every replica it knows (its `received` cursors).
    package let knowledge: PeerKnowledge
    /// The sender's last journal seq: its batches end at or before it, until it announces a later one.
    package let lastSeq: UInt64
    /// The sender's wall clock, in milliseconds since 1970.
    package var milliseconds: UInt64 = 0
    /// The server merges nothing (it only sends).
    package var readOnly = false
    /// Nothing is written on either side: batches are planned, not merged.
    package var dryRun = false
    /// The session stays open; the server announces its own commits.
    package var live = false
    /// The sender relays between two servers and is no replica: after the server's answer it sends a
    /// second hello, the introduction of the replica it relays for (the other server's own hello),
    /// and the session is with that replica. The sender may close the stream between any two batches
    /// it forwards (see the architecture document, "Relaying between two remotes").
    package var relay = false

    package init(replica: ReplicaID, selection: SyncSelection, knowledge: PeerKnowledge, lastSeq: UInt64) {
        self.replica = replica
        self.selection = selection
        self.knowledge = knowledge
        self.lastSeq = lastSeq
    }

    var flags: UInt16 { (readOnly ? 1 : 0) | (dryRun ? 2 : 0) | (live ? 4 : 0) | (relay ? 8 : 0) }

    /// The replica a relay's first hello names: none (the relay has no replica; its introduction follows).
    package static let relayPlaceholder = ReplicaID(bytes: Array("concord-relay-id".utf8))!

    static func decode(_ payload: [UInt8], limits: BundleLimits) throws(ConcordError) -> SyncHello {
        let header = magic.count + 2 + 2 + 4
        guard payload.count >= magic.count, Array(payload[..<magic.count]) == magic else {
            throw ConcordError.session(
                .malformed, "the peer's first frame is not a Concord hello: the far side is not 'sync-tool serve' (check the remote command)")
        }
        guard payload.count >= header else { throw ConcordError.session(.malformed, "a hello of \(payload.count) bytes is too short") }
        var r = ByteReader(Array(payload[magic.count..<header]))
        let version = (try? r.u16()) ?? 0
        let flags = (try? r.u16()) ?? 0
        let stored = (try? r.u32()) ?? 0
        guard version <= currentVersion else {
            throw ConcordError.session(
                .newerProtocol, "the peer speaks sync protocol version \(version), newer than this side's \(currentVersion): upgrade Concord on this side")
        }
        guard version >= 1 else { throw ConcordError.session(.malformed, "sync protocol version 0 does not exist") }
        guard version >= minimumVersion else {
            throw ConcordError.session(
                .olderProtocol,
                "the peer speaks sync protocol version \(version), older than \(minimumVersion), the oldest this side accepts (from version 2 on, a batch stays within the last seq its sender announced; from version 3 on, cursors are proven against history marks; from version 4 on, records may expire; from version 5 on, they may be sealed): upgrade Concord where version \(version) runs"
            )
        }
        guard stored == CRC32.checksum([SyncFrame.Kind.hello.rawValue] + Array(payload[..<(header - 4)])) else {
            throw ConcordError.session(.malformed, "the checksum of the hello does not match: the stream was damaged in transit")
        }
        guard flags & ~15 == 0 else { throw ConcordError.session(.malformed, "the hello has unknown flags \(flags)") }
        let bundle = try SyncFrame.bundle(Array(payload[header...]), limits: limits, refusal: "the hello was refused")
        guard bundle.batch.entries.isEmpty else { throw ConcordError.session(.malformed, "the hello carries entries; a hello describes its sender only") }
        var hello = SyncHello(replica: bundle.batch.source, selection: bundle.batch.selection, knowledge: bundle.batch.knowledge, lastSeq: bundle.batch.toSeq)
        hello.version = version
        hello.milliseconds = bundle.createdMilliseconds
        hello.readOnly = flags & 1 != 0
        hello.dryRun = flags & 2 != 0
        hello.live = flags & 4 != 0
        hello.relay = flags & 8 != 0
        return hello
    }
}

/// The receiver's answer to a batch: how far its cursor moved and what the merge did.
///
/// <!-- assume: let batch: RemoteBatch = given(), report: ApplyReport = given() -->
/// ```swift
/// let ack = SyncAck(toSeq: batch.toSeq, report: report)
/// ```
package struct SyncAck: Sendable, Equatable {
    /// The batch's last seq: the receiver has merged the sender's journal through it.
    package let toSeq: UInt64
    package let cursorAdvanced: Bool
    package let entries: Int
    package let alreadyMerged: Int
    package let recordsChanged: Int
    package let conflicts: Int
    package let skewedVersions: Int
    package let maxSkewMilliseconds: UInt64
    /// The receiver's history mark after the merge (of the receiver's own history, so its seq is in the
    /// receiver's journal, not the sender's): a state of the receiver that holds the batch.
    package let mark: HistoryMark?

    package init(toSeq: UInt64, report: ApplyReport) {
        self.init(
            toSeq: toSeq, cursorAdvanced: report.cursorAdvanced, entries: report.entries, alreadyMerged: report.alreadyMerged,
            recordsChanged: report.recordsChanged, conflicts: report.conflicts.count,
            skewedVersions: report.skewedVersions, maxSkewMilliseconds: report.maxSkewMilliseconds, mark: report.markAfter)
    }

    /// What the far side's merge of one batch did, as this acknowledgement tells the sender: one batch,
    /// its counts, its conflicts counted (listed in the far side's log), the sender's journal read
    /// through `toSeq`, and the far side's mark after it. The far side's seqs are its own, so the report
    /// carries none.
    package func report(from source: ReplicaID, into target: ReplicaID) -> ApplyReport {
        var report = ApplyReport(source: source, target: target)
        report.batches = 1
        report.entries = entries
        report.alreadyMerged = alreadyMerged
        report.recordsChanged = recordsChanged
        report.remoteConflicts = conflicts
        report.skewedVersions = skewedVersions
        report.maxSkewMilliseconds = maxSkewMilliseconds
        report.cursorAdvanced = cursorAdvanced
        report.sourceSeqRead = toSeq
        report.markAfter = mark
        return report
    }

    init(
        toSeq: UInt64, cursorAdvanced: Bool, entries: Int, alreadyMerged: Int, recordsChanged: Int, conflicts: Int,
        skewedVersions: Int, maxSkewMilliseconds: UInt64, mark: HistoryMark?
    ) {
        self.toSeq = toSeq
        self.cursorAdvanced = cursorAdvanced
        self.entries = entries
        self.alreadyMerged = alreadyMerged
        self.recordsChanged = recordsChanged
        self.conflicts = conflicts
        self.skewedVersions = skewedVersions
        self.maxSkewMilliseconds = maxSkewMilliseconds
        self.mark = mark
    }

    func encode(into w: inout ByteWriter) {
        w.u64(toSeq)
        w.u8(cursorAdvanced ? 1 : 0)
        for n in [entries, alreadyMerged, recordsChanged, conflicts, skewedVersions] { w.u64(UInt64(n)) }
        w.u64(maxSkewMilliseconds)
        w.u8(mark == nil ? 0 : 1)
        if let mark { w.append(mark.encoded) }
    }

    static func decode(_ r: inout ByteReader) throws(ValueDecodingError) -> SyncAck {
        let toSeq = try r.u64()
        let advanced = try r.u8()
        guard advanced <= 1 else { throw ValueDecodingError("a cursor flag of \(advanced)") }
        var counts: [Int] = []
        for _ in 0..<5 {
            let n = try r.u64()
            guard n <= UInt64(Int32.max) else { throw ValueDecodingError("a count of \(n)") }
            counts.append(Int(n))
        }
        let skew = try r.u64()
        let hasMark = try r.u8()
        guard hasMark <= 1 else { throw ValueDecodingError("a mark flag of \(hasMark)") }
        let mark = hasMark == 1 ? try HistoryMark.decode(&r) : nil
        return SyncAck(
            toSeq: toSeq, cursorAdvanced: advanced == 1, entries: counts[0], alreadyMerged: counts[1], recordsChanged: counts[2],
            conflicts: counts[3], skewedVersions: counts[4], maxSkewMilliseconds: skew, mark: mark)
    }
}

/// What one side found when it checked the other's claims about its history (see the architecture
/// document, "Trust and time"), sent by each side after the hellos: with the receiver's own finding,
/// both sides know whether the session is a delta or a resync, and why.
///
/// <!-- assume: let peer: SyncHello = given(), selection = SyncSelection.all -->
/// ```swift
/// let verdict = SyncVerdict(try store.beginContact(with: peer.replica, claims: peer.knowledge, selection: selection, dryRun: false))
/// ```
package struct SyncVerdict: Sendable, Equatable {
    /// The sender's finding.
    package let check: ContactCheck

    package init(_ check: ContactCheck) { self.check = check }

    // [flags u8: 1 a claim failed, 2 it shows a rollback, 4 cursors predated marks, 8 unfinished reset]
    // [claimed seq u64][its reason u8: 1 past the last seq, 2 missing mark, 3 pruned][last seq u64]
    func encode(into w: inout ByteWriter) {
        let failure = check.claims.firstFailure
        var flags: UInt8 = failure == nil ? 0 : 1
        if failure?.showsRollback == true { flags |= 2 }
        if check.predatesMarks { flags |= 4 }
        if check.unfinished { flags |= 8 }
        w.u8(flags)
        w.u64(failure?.seq ?? 0)
        switch failure?.reason {
        case .pastLastSeq(let last)?:
            w.u8(1)
            w.u64(last)
        case .missingMark?:
            w.u8(2)
            w.u64(0)
        case .pruned?:
            w.u8(3)
            w.u64(0)
        case nil:
            w.u8(0)
            w.u64(0)
        }
    }

    static func decode(_ r: inout ByteReader) throws(ValueDecodingError) -> SyncVerdict {
        let flags = try r.u8()
        guard flags & ~15 == 0 else { throw ValueDecodingError("unknown verdict flags \(flags)") }
        let seq = try r.u64()
        let code = try r.u8()
        let last = try r.u64()
        var check = ContactCheck()
        check.predatesMarks = flags & 4 != 0
        check.unfinished = flags & 8 != 0
        if flags & 1 != 0 {
            let reason: ClaimFailure.Reason
            switch code {
            case 1: reason = .pastLastSeq(last)
            case 2: reason = .missingMark
            case 3: reason = .pruned
            default: throw ValueDecodingError("a failed claim with reason \(code)")
            }
            guard (flags & 2 != 0) == (reason != .pruned) else { throw ValueDecodingError("a verdict whose flags contradict its reason") }
            check.claims.failures = [ClaimFailure(seq: seq, reason: reason)]
        }
        return SyncVerdict(check)
    }
}

extension ConcordError.Code {
    /// The byte a failure frame carries for this code: the protocol's failure kinds, numbered since its
    /// first version; any other code goes out as a refusal of the request.
    var wireByte: UInt8 {
        switch self {
        case .unreachable: 1
        case .timedOut: 2
        case .truncated: 3
        case .malformed: 4
        case .oversized: 5
        case .newerProtocol: 6
        case .readOnly: 7
        case .peerStore: 9
        case .olderProtocol: 10
        default: 8
        }
    }

    /// The code a failure frame's byte stands for (an unknown byte: a refusal).
    init(wireByte: UInt8) {
        let codes: [UInt8: Self] = [
            1: .unreachable, 2: .timedOut, 3: .truncated, 4: .malformed, 5: .oversized, 6: .newerProtocol, 7: .readOnly, 9: .peerStore,
            10: .olderProtocol
        ]
        self = codes[wireByte] ?? .refusedByPeer
    }
}
