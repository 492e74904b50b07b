import ConcordStore
import ConcordSync

/// What one sync of a device with its hub account did (or, for a dry run, would do).
///
/// ```swift
/// let report = try HubSynchronizer().sync(store, hub)
/// print("pushed \(report.pushed) (\(report.hubRowsChanged) won), pulled \(report.pulled.recordsChanged)")
/// ```
public struct HubSyncReport: Sendable, Equatable {
    /// Changes sent to the hub (the device's journal entries after the hub's cursor on it).
    public var pushed = 0
    /// Hub rows they changed (a pushed record won, or the key was new to the hub).
    public var hubRowsChanged = 0
    /// Concurrent writes the push met on the hub (each loser is in the device's conflict log).
    public var pushConflicts: [Conflict] = []
    /// What merging the hub's changes into the device did, all pages together; conflicts are in the
    /// device's log, and the rows the gate refused (left out, the sound rows merged) in `pulled.refused`.
    public var pulled: ApplyReport
    /// Records of the device left out of the push because the gate refuses them (stored before its
    /// rules, such as a key holding U+0000): the hub would refuse them, or could not hold them.
    public var pushLeftOut: [RefusedRecord] = []
    /// Pages pulled (each merged in one write transaction).
    public var pages = 0
    /// True when the device's cursor was behind the hub's tombstone horizon, so it got a full resync.
    public var resync = false
    /// Journal entries read on the device to find what to push.
    public var journalEntriesRead = 0
    /// True when nothing was written, on either side.
    public var dryRun = false
    /// The account's last seq the pull read up to (every change up to it is merged here).
    package var hubLastSeq: UInt64 = 0

    /// Every concurrent write this sync met, pushing and pulling.
    public var conflicts: [Conflict] { pushConflicts + pulled.conflicts }

    /// True when neither side had a record the other lacked.
    public var isInSync: Bool { hubRowsChanged == 0 && pulled.recordsChanged == 0 }
}

/// Syncs a device's store with its account on a hub: pushes the device's changes the hub has not
/// merged (one SQL transaction), then pulls the account's changes after the device's cursor (pages,
/// each one local write transaction). A sync cut anywhere leaves each side with whole steps applied
/// and cursors that only move forward, so the next sync finishes the job.
///
/// ```swift
/// let hub = try Hub("postgresql://alice@db.example.com/settings")
/// let report = try HubSynchronizer(selection: try SyncSelection(suites: ["prefs"])).sync(store, hub)
/// ```
public struct HubSynchronizer: Sendable {
    /// The suites a sync covers. The default is every suite.
    public var selection: SyncSelection
    /// Rows per pulled page (bounds the memory a pull holds).
    public var pageSize: Int
    /// How far ahead of the device's wall clock a merged version may push its clock (nil: the store's option).
    public var maxClockDriftMilliseconds: UInt64?

    /// How many journal entries a device may read and skip (changes it received from the hub)
    /// before a sync moves the hub's cursor on it without a change to push.
    static let cursorLag = 1000

    /// A hub synchronizer of the suites of `selection`, pulling `pageSize` rows at a time.
    public init(selection: SyncSelection = .all, pageSize: Int = 1000, maxClockDriftMilliseconds: UInt64? = nil) {
        self.selection = selection
        self.pageSize = max(1, pageSize)
        self.maxClockDriftMilliseconds = maxClockDriftMilliseconds
    }

    /// Pushes then pulls; with `dryRun`, computes the same counts and writes nothing anywhere.
    ///
    /// ```swift
    /// let report = try HubSynchronizer().sync(store, hub)
    /// print(report.pushed, "pushed,", report.pulled.recordsChanged, "pulled")
    /// ```
    ///
    /// - Parameters:
    ///   - store: The device's replica.
    ///   - hub: The hub session of the device's account.
    ///   - dryRun: When true, nothing is written to the store or the hub.
    /// - Returns: What was pushed and pulled, the pages read, conflicts, and whether a full resync ran.
    /// - Throws: `HubError` when the hub fails or cannot be reached (a push is all or nothing; pulled
    ///   pages already merged stay merged, and the next sync goes on from there), `StoreError` when
    ///   the replica cannot be written.
    @discardableResult
    public func sync(_ store: Store, _ hub: Hub, dryRun: Bool = false) throws -> HubSyncReport {
        var report = try push(store, hub, dryRun: dryRun)
        let pulled = try pull(store, hub, dryRun: dryRun)
        report.pulled = pulled.pulled
        report.pages = pulled.pages
        report.resync = pulled.resync
        report.hubLastSeq = pulled.hubLastSeq
        return report
    }

    /// Sends the hub the device's changes it lacks (one direction).
    @discardableResult
    public func push(_ store: Store, _ hub: Hub, dryRun: Bool = false) throws -> HubSyncReport {
        guard store.replicaID != hub.replicaID else { throw SyncError.sameReplica(store.replicaID, store.directory) }
        let knowledge = try hub.knowledge(of: store.replicaID)
        let delta = try DeltaReader.read(from: store, for: hub.replicaID, alreadyMerged: knowledge, selection: selection)
        var report = HubSyncReport(pulled: ApplyReport(source: hub.replicaID, target: store.replicaID))
        report.dryRun = dryRun
        report.pushed = delta.batch.entries.count
        report.journalEntriesRead = delta.journalEntriesRead
        report.pushLeftOut = delta.leftOut
        if dryRun {
            report.hubRowsChanged = try HubPush.plan(delta.batch, to: hub)
        } else if !delta.batch.entries.isEmpty || !delta.leftOut.isEmpty || delta.journalEntriesRead >= Self.cursorLag
            || selection.scopes.contains(where: { scope in !knowledge.items.contains { $0.scope == scope } })
        {
            // Changes to send (or left out: the hub's cursor moves past them, so they are reported once),
            // or a device the hub has not met (it registers). Entries the hub sent
            // (re-journaled here) need no push: the hub's cursor on the device moves with the next
            // real push, or once the skipped entries cost `cursorLag` reads.
            let cursors = try store.peerCursors()
            var conflicts: [Conflict] = []
            let outcome = try HubPush.push(delta.batch, to: hub, pulled: { cursors.received(from: hub.replicaID, suite: $0) }) { meetings in
                conflicts = try logConflicts(meetings, store: store, hub: hub)
            }
            report.hubRowsChanged = outcome.rowsChanged
            report.pushConflicts = conflicts
        }
        return report
    }

    /// Logs the loser of each concurrent write a push met in the device's conflict log.
    private func logConflicts(_ meetings: [HubPush.Meeting], store: Store, hub: Hub) throws -> [Conflict] {
        try store.write { w in
            let now = w.wallClockMilliseconds
            var out: [Conflict] = []
            for m in meetings {
                let localSource = try w.journalSource(seq: m.entry.seq) ?? .sync(peer: hub.replicaID)
                let local = ConflictSide(record: m.pushedLost ? m.loser : m.winner, source: localSource)
                let remote = ConflictSide(record: m.pushedLost ? m.winner : m.loser, source: .sync(peer: hub.replicaID))
                let conflict = Conflict(
                    suite: m.entry.suite, key: m.entry.key, winner: m.pushedLost ? remote : local,
                    loser: m.pushedLost ? local : remote, peer: hub.replicaID, detectedMilliseconds: now)
                try w.logConflict(conflict)
                out.append(conflict)
            }
            return out
        }
    }

    /// Merges into the device the account's changes it lacks (one direction).
    @discardableResult
    public func pull(_ store: Store, _ hub: Hub, dryRun: Bool = false) throws -> HubSyncReport {
        guard store.replicaID != hub.replicaID else { throw SyncError.sameReplica(store.replicaID, store.directory) }
        var applier = BatchApplier(store: store)
        if let maxClockDriftMilliseconds { applier.maxClockDriftMilliseconds = maxClockDriftMilliseconds }
        let outcome = try HubPull(hub: hub, store: store, selection: selection, applier: applier, pageSize: pageSize).run(dryRun: dryRun)
        var report = HubSyncReport(pulled: outcome.report)
        report.pages = outcome.pages
        report.resync = outcome.resync
        report.dryRun = dryRun
        report.hubLastSeq = outcome.last
        return report
    }
}
