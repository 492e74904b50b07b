/// What a sync did both ways (or, for a dry run, would do): A's changes merged into B, and B's into A.
/// Every transport returns one — two directories, a remote over ssh, two remotes relayed, each round
/// of a ``LiveSync``, and a hub (A the device, B the hub) — with one ``ApplyReport`` per direction.
///
/// ```swift
/// let report = try Synchronizer().sync(laptop, phone)
/// print(report.aToB.recordsChanged, report.bToA.recordsChanged, report.conflictCount)
/// ```
public struct SyncReport: Sendable, Equatable {
    /// A's changes merged into B.
    public var aToB: ApplyReport
    /// B's changes merged into A.
    public var bToA: ApplyReport
    /// True when nothing was written.
    public var dryRun: Bool
    /// Set when the replicas resent everything both ways: one was found restored from an earlier state
    /// (or their cursors could not be proven). Nil for a delta.
    package var historyResync: HistoryResync?

    /// Why the replicas resent everything both ways, in words (one was restored from an earlier state
    /// — a backup, a file-system or VM snapshot — or is a copy that kept running beside its original,
    /// or their cursors could not be proven); nil for a delta. Merging is idempotent, so a resync is
    /// always safe: the replicas then hold every record either had.
    ///
    /// ```swift
    /// let report = try Synchronizer().sync(laptop, phone)
    /// if let why = report.resyncReason { print("resent everything:", why) }
    /// ```
    public var resyncReason: String? { historyResync?.description }

    /// A report of the two directions of a sync.
    package init(aToB: ApplyReport, bToA: ApplyReport, dryRun: Bool) {
        self.aToB = aToB
        self.bToA = bToA
        self.dryRun = dryRun
    }

    /// Journal entries read on both replicas (the cost of finding the changes).
    public var journalEntriesRead: Int { aToB.journalEntriesRead + bToA.journalEntriesRead }

    /// Entries sent both ways that the receiving side had not merged already.
    public var newEntries: Int { aToB.newEntries + bToA.newEntries }

    /// Records changed on both sides.
    public var recordsChanged: Int { aToB.recordsChanged + bToA.recordsChanged }

    /// The concurrent writes found here, each once (two replicas opened here both log the same conflict
    /// when both see it).
    public var conflicts: [Conflict] {
        var seen = Set<[String]>()
        var out: [Conflict] = []
        for c in aToB.conflicts + bToA.conflicts {
            let id = [c.suite, c.key, c.loser.version.description, c.winner.version.description]
            if seen.insert(id).inserted { out.append(c) }
        }
        return out
    }

    /// Every concurrent write the sync met: ``SyncReport/conflicts`` and those counted on the far side
    /// of a session (in the far replica's conflict log).
    public var conflictCount: Int { conflicts.count + aToB.remoteConflicts + bToA.remoteConflicts }

    /// Versions merged from further ahead of the receiver's wall clock than the allowed drift.
    public var skewedVersions: Int { aToB.skewedVersions + bToA.skewedVersions }

    /// True when neither replica had a record the other lacked (for the synced suites).
    public var isInSync: Bool { recordsChanged == 0 }
}
