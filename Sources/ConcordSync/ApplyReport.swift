/// What merging one batch into a replica did (or, for a dry run, would do).
///
/// ```swift
/// let report = try BundleExchange.importBundle(at: "/tmp/phone.bundle", into: watch)
/// print(report.recordsChanged, "changed,", report.conflicts.count, "conflicts")
/// ```
public struct ApplyReport: Sendable, Equatable {
    /// The replica the batch came from.
    public let source: ReplicaID
    /// The replica it was merged into.
    public let target: ReplicaID
    /// Entries in the batch.
    public var entries = 0
    /// Entries skipped because the target had merged them already (at or before its cursor on the source).
    public var alreadyMerged = 0
    /// Records the batch changed (a remote record won, or the key was new here).
    public var recordsChanged = 0
    /// Concurrent writes found: the loser of each is in the target's conflict log.
    public var conflicts: [Conflict] = []
    /// Remote versions further ahead of the target's wall clock than the allowed drift (merged all the same).
    public var skewedVersions = 0
    /// How far ahead of the target's wall clock the most skewed version was, in milliseconds.
    public var maxSkewMilliseconds: UInt64 = 0
    /// Records looked up in the target (the cost of the merge).
    public var recordsRead = 0
    /// Records written to the target.
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
    /// The target's history mark after the merge (nil for a dry run): a sender that learns it knows a
    /// state of the target that holds what it sent.
    package var markAfter: HistoryMark?
    /// Set when this merge was part of a resync: a replica was found restored from an earlier state
    /// (or cursors could not be proven), so everything was sent.
    public var historyResync: HistoryResync?
    /// A bundle older than what the target had merged of its source: every entry was merged and the
    /// cursor stayed.
    package var olderThanCursor = false
    /// The source's records this merge left out because the gate (`RecordGate`) refused them: rows of
    /// a hub page (the sound rows merged), or records a source replica holds from before the gate
    /// (its reader left them out). A bundle or a peer's batch holding one is refused whole instead.
    public var refused: [ConcordError] = []

    /// An empty report of a merge from `source` into `target`.
    public init(source: ReplicaID, target: ReplicaID) {
        self.source = source
        self.target = target
    }
}

extension ApplyReport {
    /// Adds another batch's report to this one (a delta merged as several batches).
    package mutating func add(_ other: ApplyReport) {
        entries += other.entries
        alreadyMerged += other.alreadyMerged
        recordsChanged += other.recordsChanged
        conflicts += other.conflicts
        skewedVersions += other.skewedVersions
        maxSkewMilliseconds = max(maxSkewMilliseconds, other.maxSkewMilliseconds)
        recordsRead += other.recordsRead
        recordsWritten += other.recordsWritten
        recordsMigrated += other.recordsMigrated
        deviceLocalIgnored += other.deviceLocalIgnored
        recordsRejournaled += other.recordsRejournaled
        cursorAdvanced = cursorAdvanced && other.cursorAdvanced
        refused += other.refused
        if targetSeqBefore == 0 { targetSeqBefore = other.targetSeqBefore }
        targetSeqAfter = other.targetSeqAfter
        markAfter = other.markAfter ?? markAfter
        historyResync = historyResync ?? other.historyResync
    }
}
