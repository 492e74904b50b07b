/// What one direction of a sync did (or, for a dry run, would do): one replica's changes, merged into
/// another. Every transport reports a direction so — a bundle import, each half of a ``SyncReport``
/// (two directories, a remote over ssh, two remotes relayed, a live round, a hub) — whether the merge
/// ran in this process or on the far side, which then acknowledged its counts.
///
/// ```swift
/// let report = try watch.importBundle(at: "/tmp/phone.bundle")
/// print(report.recordsChanged, "changed,", report.conflictCount, "conflicts")
/// ```
public struct ApplyReport: Sendable, Equatable {
    /// The replica the changes came from.
    public let source: ReplicaID
    /// The replica they were merged into.
    public let target: ReplicaID
    /// Entries sent (or, from a bundle, read).
    public var entries = 0
    /// Entries skipped because the target had merged them already (at or before its cursor on the source).
    public var alreadyMerged = 0
    /// Records the changes changed in the target (a remote record won, or the key was new there).
    public var recordsChanged = 0
    /// Concurrent writes found by a merge in a replica this process has open; the loser of each is in
    /// that replica's conflict log.
    public var conflicts: [Conflict] = []
    /// Concurrent writes found by a merge on the far side of a session (a remote, or with two remotes
    /// either): counted in its acknowledgements, listed in that replica's conflict log.
    public var remoteConflicts = 0
    /// Remote versions further ahead of the target's wall clock than the allowed drift (merged all the same).
    public var skewedVersions = 0
    /// How far ahead of the target's wall clock the most skewed version was, in milliseconds (as a
    /// session's acknowledgement carries it).
    package var maxSkewMilliseconds: UInt64 = 0
    /// How far ahead of the target's wall clock the most skewed version was (zero when none was ahead).
    public var maxSkew: Duration { .milliseconds(maxSkewMilliseconds) }
    /// Batches the changes travelled in: acknowledged batches of a session, pages of a hub pull, one
    /// for a directory's delta, a bundle or a hub push (one SQL transaction).
    public var batches = 0
    /// Journal entries read on the source to find the changes (the cost of finding them).
    public var journalEntriesRead = 0
    /// Records looked up in the target (the cost of the merge; 0 when it ran on the far side).
    public var recordsRead = 0
    /// Records written to the target (0 when the merge ran on the far side).
    public var recordsWritten = 0
    /// Records the target's schema migrations changed on the way in (values written at an older schema).
    public var recordsMigrated = 0
    /// Records of keys the target holds as device-local, which it did not merge (it keeps its own):
    /// sent by a replica that had not seen the declaration yet, or in an older bundle.
    public var deviceLocalIgnored = 0
    /// Records the target journaled again because the batch ended their keys' stay on the device:
    /// new entries of the target that are not the batch's.
    package var recordsRejournaled = 0
    /// False when the batch starts after what the target had merged of the source (an earlier batch is
    /// missing): its entries were merged, but the cursor stays, so the gap is sent again next time.
    public var cursorAdvanced = true
    /// The target's last journal seq when the merge began, and when it ended (equal for a dry run).
    /// Every entry between them is one of this batch's records, re-journaled.
    public var targetSeqBefore: UInt64 = 0
    /// The target's last journal seq when the merge ended (see `targetSeqBefore`).
    public var targetSeqAfter: UInt64 = 0
    /// The source's last seq the changes were read up to (a hub pull: the account's; every change up
    /// to it is merged in the target).
    package var sourceSeqRead: UInt64 = 0
    /// The target's history mark after the merge (nil for a dry run): a sender that learns it knows a
    /// state of the target that holds what it sent.
    package var markAfter: HistoryMark?
    /// Set when this merge was part of a resync: a replica was found restored from an earlier state
    /// (or cursors could not be proven), so everything was sent.
    package var historyResync: HistoryResync?
    /// Why this direction sent everything, in words (a replica found restored from an earlier state,
    /// or cursors that could not be proven); nil for a delta.
    public var resyncReason: String? { historyResync?.description }
    /// True when the target's cursor was behind the source's tombstone horizon (a hub's), so the
    /// source sent every record it holds and keys it no longer lists were deleted in the target.
    public var horizonResync = false
    /// A bundle older than what the target had merged of its source: every entry was merged and the
    /// cursor stayed.
    package var olderThanCursor = false
    /// The source's records this direction left out because the gate (`RecordGate`) refused them:
    /// records the source holds from before the gate's rules (its reader left them out), or rows of a
    /// hub page the target refused (the sound rows merged). A bundle or a peer's batch holding one is
    /// refused whole instead.
    public var refused: [ConcordError] = []

    /// An empty report of a merge from `source` into `target`.
    package init(source: ReplicaID, target: ReplicaID) {
        self.source = source
        self.target = target
    }

    /// Entries the target had not merged yet: the changes this direction moved.
    public var newEntries: Int { entries - alreadyMerged }

    /// Every concurrent write this direction met: those listed in ``ApplyReport/conflicts`` and those counted on
    /// the far side (``ApplyReport/remoteConflicts``).
    public var conflictCount: Int { conflicts.count + remoteConflicts }
}

extension ApplyReport {
    /// Adds another batch's report to this one (a delta merged as several batches, a relay's legs, or
    /// what the far side acknowledged of one batch: `SyncAck/report(from:into:)`).
    package mutating func add(_ other: ApplyReport) {
        entries += other.entries
        alreadyMerged += other.alreadyMerged
        recordsChanged += other.recordsChanged
        conflicts += other.conflicts
        remoteConflicts += other.remoteConflicts
        skewedVersions += other.skewedVersions
        maxSkewMilliseconds = max(maxSkewMilliseconds, other.maxSkewMilliseconds)
        batches += other.batches
        journalEntriesRead += other.journalEntriesRead
        recordsRead += other.recordsRead
        recordsWritten += other.recordsWritten
        recordsMigrated += other.recordsMigrated
        deviceLocalIgnored += other.deviceLocalIgnored
        recordsRejournaled += other.recordsRejournaled
        cursorAdvanced = cursorAdvanced && other.cursorAdvanced
        refused += other.refused
        if targetSeqBefore == 0 { targetSeqBefore = other.targetSeqBefore }
        // Batches merge in order, so the later one's is the larger; a far side's acknowledgement carries none (0).
        targetSeqAfter = max(targetSeqAfter, other.targetSeqAfter)
        sourceSeqRead = max(sourceSeqRead, other.sourceSeqRead)
        markAfter = other.markAfter ?? markAfter
        historyResync = historyResync ?? other.historyResync
        horizonResync = horizonResync || other.horizonResync
    }
}
