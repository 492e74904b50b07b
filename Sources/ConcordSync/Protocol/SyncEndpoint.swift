/// What the start of a session decided (see the architecture document, "Trust and time"): this
/// side's check of the peer's claims about its history, and the peer's check of this side's claims
/// about the peer's history, exchanged as verdicts after the hellos.
struct SessionStart {
    /// This side's finding: the peer's claims about this replica, checked here.
    let mine: ContactCheck
    /// The peer's finding, from its verdict.
    let theirs: ContactCheck

    /// A claim failed on either side: both resend everything.
    var resync: Bool { mine.forcesResync || theirs.forcesResync }

    func historyResync(me: ReplicaID, peer: ReplicaID) -> HistoryResync? {
        HistoryResync(mine.causes(me: me, peer: peer) + theirs.causes(me: peer, peer: me))
    }

    /// Checks `peer`'s claims about `store`, sends this side's verdict and reads the peer's; when the
    /// peer's history failed a claim, resets this replica's cursors on it (unless `dryRun`).
    static func exchange(store: Store, channel: SyncChannel, peer: SyncHello, selection: SyncSelection, dryRun: Bool) throws -> SessionStart {
        let mine = try store.beginContact(with: peer.replica, claims: peer.knowledge, selection: selection, dryRun: dryRun)
        try channel.send(.verdict(SyncVerdict(mine)))
        let theirs: ContactCheck
        switch try channel.receive() {
        case .verdict(let verdict)?: theirs = verdict.check
        case .failure(let error)?: throw ConcordError(error.code, "the peer: " + error.message)
        case nil: throw channel.describeFailure("the connection closed while waiting for the peer's verdict on the cursors")
        default: throw ConcordError.session(.malformed, "the peer sent something else where its verdict on the cursors belongs")
        }
        if theirs.forcesResync && !dryRun { try store.resetCursors(on: peer.replica) }
        return SessionStart(mine: mine, theirs: theirs)
    }
}

/// One side of a sync session after the handshake: it sends its replica's changes the other side
/// lacks as batches, a few ahead of their acknowledgements, and merges the batches it receives, each
/// in one write transaction, acknowledging each. Both the client and `serve` use it.
///
/// A large delta travels as several batches (at most `maxBatchEntries` entries or about
/// `maxBatchBytes` bytes each), read from the journal one at a time, so neither side ever holds
/// the whole delta. Every batch is bound to this replica's current history mark.
///
/// A batch must stay within what its sender announced: it ends at or before the sender's last seq as
/// its hello or its latest `announce` frame gave it, and a batch of a round starts at or after the end
/// of the one before. So a side announces its last seq before a batch that reaches past its previous
/// announcement, and refuses a batch from the peer that breaks either rule (a forged range could move
/// its cursor on a replica past changes it never received).
///
/// When the session start found a replica restored from an earlier state, the first exchange is a
/// resync: everything both ways, nothing left out as an echo, every entry merged, the cursors
/// replaced; later rounds are deltas again.
final class SyncEndpoint {
    let store: Store
    let channel: SyncChannel
    let peer: ReplicaID
    let selection: SyncSelection
    let dryRun: Bool
    var maxBatchEntries = 20_000
    var maxBatchBytes = 2 << 20
    /// Batches sent ahead of their acknowledgements, at most.
    var maxBatchesInFlight = 4
    /// Told, batch by batch, how far each direction of a round has come (phases "send" and
    /// "receive", in seqs of the sending side's journal: from the cursor to the last seq announced).
    var onProgress: ProgressHandler?
    /// How far the peer has merged this replica, per scope (from its proven claims, then its acknowledgements).
    private var peerHas: [SyncScope: UInt64]
    /// The next send is the resync's: everything, unfiltered.
    private var resyncSend: Bool
    /// The next batches received are the resync's: merged whatever the cursor says.
    private var resyncReceive: Bool
    /// Whether this side's cursors on the peer still wait for a proof that the peer merged this
    /// replica's history (a first contact, or after a resync): an acknowledgement with the peer's mark gives it.
    private var awaitingProof: Bool
    /// The peer announced a change while this side was waiting for something else.
    var announced = false
    /// The peer (a relay) may end the session between two of the batches it sends.
    var mayCloseBetweenBatches = false
    /// It did: the last `receiveChanges` ended with the stream, after whole batches.
    private(set) var closedBetweenBatches = false
    /// The last seq the peer announced (its hello's, then its `announce` frames'): its batches end at or before it.
    private var peerAnnounced: UInt64
    /// The last seq this side announced to the peer in its sessions' rounds (its hello's at first).
    private var announcedToPeer: UInt64

    /// An endpoint of a session with `peer`, this side having announced `announced` as its last seq in
    /// its hello; `start` is what the verdicts decided (a delta, or a resync).
    init(store: Store, channel: SyncChannel, peer: SyncHello, selection: SyncSelection, dryRun: Bool, announced: UInt64, start: SessionStart) throws {
        self.store = store
        self.channel = channel
        self.peer = peer.replica
        self.selection = selection
        self.dryRun = dryRun
        peerAnnounced = peer.lastSeq
        announcedToPeer = announced
        let me = store.replicaID
        let proven = start.mine.claims.proven
        peerHas = Dictionary(uniqueKeysWithValues: selection.scopes.map { ($0, start.resync ? 0 : proven.merged(of: me, scope: $0)) })
        resyncSend = start.resync
        resyncReceive = start.resync
        let table = try store.peerCursors()
        let peerID = peer.replica
        awaitingProof = selection.scopes.contains { table.cursor(peer: peerID, scope: $0)?.echoSafe != true }
    }

    /// True while the first exchange of a resync has not happened yet on this side.
    var resyncing: Bool { resyncSend || resyncReceive }

    private var peerKnowledge: PeerKnowledge {
        PeerKnowledge(items: peerHas.map { .init(replica: store.replicaID, scope: $0.key, seq: $0.value) })
    }

    /// Sends the changes the peer lacks (at least one batch when `atLeastOne`, or in a resync). Up to
    /// `maxBatchesInFlight` batches travel before their acknowledgements: the next part is read and
    /// sent while the peer merges the ones before, and each acknowledgement moves what the peer is
    /// known to hold as it arrives (in order: the peer merges batches one after another). A session
    /// cut midway leaves the peer with the whole batches it acknowledged, as with one batch at a time.
    func sendChanges(atLeastOne: Bool) throws -> ApplyReport {
        var sent = ApplyReport(source: store.replicaID, target: peer)
        var after: UInt64?
        let full = resyncSend
        // The first part is read before the mark is taken (a replica whose journal cannot be read writes
        // nothing); the later parts stop at that mark.
        var mark: HistoryMark?
        var meter: (ProgressMeter, start: UInt64)?
        let lastSeq = onProgress == nil ? 0 : try store.lastSeq()
        /// The batches sent and not yet acknowledged, oldest first: where each ends, and whether it is the last.
        var inFlight: [(toSeq: UInt64, complete: Bool)] = []
        var batchesSent = 0
        func acknowledged() throws {
            let ack = try awaitAck()
            let batch = inFlight.removeFirst()
            guard ack.toSeq == batch.toSeq else {
                throw ConcordError.session(.malformed, "the peer acknowledged seq \(ack.toSeq) for a batch ending at \(batch.toSeq)")
            }
            sent.add(ack.report(from: sent.source, into: sent.target))
            if let meter { meter.0.update(Int(clamping: ack.toSeq - meter.start)) }
            if ack.cursorAdvanced && !dryRun { for scope in selection.scopes { peerHas[scope] = max(peerHas[scope] ?? 0, ack.toSeq) } }
            if batch.complete, awaitingProof && ack.cursorAdvanced && !dryRun, let proof = ack.mark { try recordProof(through: ack.toSeq, mark: proof) }
        }
        while true {
            let read = try DeltaReader.read(
                from: store, for: peer, alreadyMerged: full ? .none : peerKnowledge, selection: selection,
                after: after, maxEntries: maxBatchEntries, maxBytes: maxBatchBytes, mark: mark, leaveOutEchoes: !full)
            if mark == nil && !dryRun { mark = try store.currentMark(givingTo: peer, scopes: selection.scopes) }
            let delta = read.bound(to: mark)
            if meter == nil, let onProgress {
                let start = delta.batch.fromSeq
                meter = (ProgressMeter(onProgress, phase: "send", total: Int(clamping: max(lastSeq, delta.batch.toSeq) - start), unit: "seqs"), start)
                meter?.0.update(0)
            }
            sent.journalEntriesRead += delta.journalEntriesRead
            // A batch without entries still goes when it moves the peer's cursor past what a batch sent reached.
            let behind = peerHas.values.contains { $0 < delta.batch.toSeq } && delta.batch.toSeq > (inFlight.last?.toSeq ?? 0)
            sent.refused += delta.leftOut
            guard !delta.batch.entries.isEmpty || behind || ((atLeastOne || full) && batchesSent == 0) else { break }
            // The batch's mark covers a seq this replica holds: announced too, as the peer checks it.
            let reach = max(delta.batch.toSeq, delta.batch.mark?.seq ?? 0)
            if reach > announcedToPeer {
                try channel.send(.announce(seq: reach))
                announcedToPeer = reach
            }
            try channel.send(.batch(delta.batch))
            batchesSent += 1
            inFlight.append((delta.batch.toSeq, delta.complete))
            after = delta.batch.toSeq
            if delta.complete { break }
            if inFlight.count >= maxBatchesInFlight { try acknowledged() }
        }
        while !inFlight.isEmpty { try acknowledged() }
        try channel.send(.end)
        meter?.0.finish()
        resyncSend = false
        return sent
    }

    /// The peer merged this replica's history through `seq`, as its `mark` holds it: this replica's
    /// cursors on the peer may leave echoes out again (and are bound to that mark).
    private func recordProof(through seq: UInt64, mark: HistoryMark) throws {
        let peer = peer
        let scopes = selection.scopes
        let safe = try store.write { w -> Bool in
            var safe = true
            for scope in scopes {
                var change = CursorChange()
                change.proof = (seq, mark)
                if try !w.changePeerCursor(peer: peer, scope: scope, change).echoSafe { safe = false }
            }
            return safe
        }
        awaitingProof = !safe
    }

    /// Merges (or, in a dry run, plans) the peer's batches until it says it has no more, acknowledging each.
    /// `refuse` is thrown (and told to the peer) at the first batch, for a side that must not merge.
    /// `first` is a frame of the round already read.
    func receiveChanges(first: SyncFrame? = nil, refuse: ConcordError? = nil) throws -> ApplyReport {
        var total = ApplyReport(source: peer, target: store.replicaID)
        var applier = BatchApplier(store: store)
        applier.maxClockDriftMilliseconds = store.options.maxClockDriftMilliseconds
        let mode: BatchApplier.MergeMode = resyncReceive ? .resync : .delta
        var pending = first
        var previousEnd: UInt64?
        var meter: (ProgressMeter, start: UInt64)?
        while true {
            guard let frame = try pending ?? nextFrame("a batch or the end of the peer's changes", mayEnd: mayCloseBetweenBatches) else {
                closedBetweenBatches = true
                return total
            }
            pending = nil
            switch frame {
            case .batch(let batch):
                if let refuse { throw refuse }
                guard batch.source == peer, batch.selection == selection else {
                    throw ConcordError.session(
                        .malformed, "the peer sent a batch of replica \(batch.source) for \(batch.selection), but the session is with \(peer) for \(selection)")
                }
                try checkRange(batch, after: previousEnd)
                previousEnd = batch.toSeq
                if meter == nil, let onProgress {
                    let total = Int(clamping: max(peerAnnounced, batch.toSeq) - batch.fromSeq)
                    meter = (ProgressMeter(onProgress, phase: "receive", total: total, unit: "seqs"), batch.fromSeq)
                    meter?.0.update(0)
                }
                let report: ApplyReport
                do { report = dryRun ? try applier.plan(batch, mode: mode) : try applier.apply(batch, mode: mode) } catch let error as ConcordError {
                    throw ConcordError.session(.malformed, "the peer's batch was refused: \(error)")
                } catch {
                    throw ConcordError.session(.peerStore, "merging the peer's batch into \(store.directory) failed: \(error)")
                }
                total.add(report)
                try channel.send(.ack(SyncAck(toSeq: batch.toSeq, report: report)))
                if let meter { meter.0.update(Int(clamping: batch.toSeq - meter.start)) }
            case .end:
                resyncReceive = false
                if let meter {
                    meter.0.finish()
                } else if let onProgress {
                    let nothing = ProgressMeter(onProgress, phase: "receive", total: 0, unit: "seqs")
                    nothing.finish()
                }
                return total
            case .announce(let seq):
                noteAnnouncement(seq)
            default:
                throw ConcordError.session(.malformed, "the peer sent an unexpected frame while sending its changes")
            }
        }
    }

    /// The peer's last seq is `seq` (an `announce` frame): its batches may reach it, and it has changes.
    func noteAnnouncement(_ seq: UInt64) {
        announced = true
        peerAnnounced = max(peerAnnounced, seq)
    }

    /// Refuses a batch that ends past the last seq its sender announced (or whose history mark covers
    /// a seq past it), or starts before the end of the batch before it in the round (`previousEnd`).
    private func checkRange(_ batch: RemoteBatch, after previousEnd: UInt64?) throws(ConcordError) {
        guard batch.toSeq <= peerAnnounced else {
            throw ConcordError.session(
                .malformed,
                "the peer's batch of \(batch.source) ends at seq \(batch.toSeq), past the last seq it announced (\(peerAnnounced)); a batch carries only what its sender has, so nothing of it was merged"
            )
        }
        if let mark = batch.mark, mark.seq > peerAnnounced {
            throw ConcordError.session(
                .malformed,
                "the peer's batch of \(batch.source) is bound to a history mark covering seq \(mark.seq), past the last seq it announced (\(peerAnnounced)); a mark covers only what its sender has, so nothing of it was merged"
            )
        }
        if let previousEnd, batch.fromSeq < previousEnd {
            throw ConcordError.session(
                .malformed,
                "the peer's batch of \(batch.source) starts at seq \(batch.fromSeq), before the end of its previous batch (\(previousEnd)); the batches of a round follow one another, so nothing of it was merged"
            )
        }
    }

    private func awaitAck() throws(ConcordError) -> SyncAck {
        while true {
            switch try expectFrame("an acknowledgement") {
            case .ack(let ack): return ack
            case .announce(let seq): noteAnnouncement(seq)
            default: throw ConcordError.session(.malformed, "the peer sent something else where an acknowledgement belongs")
            }
        }
    }

    /// The next frame; the end of the stream, or a failure the peer reports, is an error.
    func expectFrame(_ what: String) throws(ConcordError) -> SyncFrame {
        try nextFrame(what, mayEnd: false)!
    }

    /// The next frame, or nil when the stream ended cleanly between frames and `mayEnd`.
    private func nextFrame(_ what: String, mayEnd: Bool) throws(ConcordError) -> SyncFrame? {
        guard let frame = try channel.receive() else {
            if mayEnd { return nil }
            throw channel.describeFailure("the connection closed while waiting for \(what)")
        }
        if case .failure(let error) = frame { throw ConcordError(error.code, "the peer: " + error.message) }
        return frame
    }
}
