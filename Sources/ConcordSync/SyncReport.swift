/// What a bidirectional sync did (or, for a dry run, would do).
///
/// ```swift
/// let report = try Synchronizer().sync(laptop, phone)
/// print(report.aToB.recordsChanged, report.bToA.recordsChanged, report.conflicts.count)
/// ```
public struct SyncReport: Sendable, Equatable {
    /// A's changes merged into B.
    public let aToB: ApplyReport
    /// B's changes merged into A.
    public let bToA: ApplyReport
    /// Journal entries read from both replicas (the cost of finding the changes).
    public let journalEntriesRead: Int
    /// True when nothing was written.
    public let dryRun: Bool
    /// Set when the replicas resent everything both ways: one was found restored from an earlier state
    /// (or their cursors could not be proven). Nil for a delta.
    public var historyResync: HistoryResync?

    /// A report of the two merges of a sync.
    public init(aToB: ApplyReport, bToA: ApplyReport, journalEntriesRead: Int, dryRun: Bool) {
        self.aToB = aToB
        self.bToA = bToA
        self.journalEntriesRead = journalEntriesRead
        self.dryRun = dryRun
    }

    /// Records changed on both sides.
    public var recordsChanged: Int { aToB.recordsChanged + bToA.recordsChanged }

    /// The concurrent writes found, each once (both replicas log the same conflict when both see it).
    public var conflicts: [Conflict] {
        var seen = Set<[String]>()
        var out: [Conflict] = []
        for c in aToB.conflicts + bToA.conflicts {
            let id = [c.suite, c.key, c.loser.record.version.description, c.winner.record.version.description]
            if seen.insert(id).inserted { out.append(c) }
        }
        return out
    }

    /// Versions merged from further ahead of the receiver's wall clock than the allowed drift.
    public var skewedVersions: Int { aToB.skewedVersions + bToA.skewedVersions }

    /// True when neither replica had a record the other lacked (for the synced suites).
    public var isInSync: Bool { recordsChanged == 0 }
}
