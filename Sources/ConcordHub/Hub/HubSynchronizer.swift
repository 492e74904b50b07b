import Concord

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
    /// Called as the sync goes: `phase` "read" (the seqs of the device's journal scanned for the
    /// push, from the hub's cursor to the last seq), "push" (`done` of `total` changes: 0, then all once the
    /// push's one transaction committed) and "pull" (seqs of the account, from the device's cursor to
    /// the account's last seq, after each page), each last with `done == total`.
    ///
    /// ```swift
    /// var synchronizer = HubSynchronizer()
    /// synchronizer.onProgress = { p in print("\(p.phase) \(p.done)/\(p.total) \(p.unit)") }
    /// try synchronizer.sync(store, hub)
    /// ```
    public var onProgress: ProgressHandler?

    /// How many journal entries a device may read and skip (changes it received from the hub)
    /// before a sync moves the hub's cursor on it without a change to push.
    static let cursorLag = 1000

    /// A hub synchronizer of the suites of `selection`, pulling `pageSize` rows at a time.
    public init(selection: SyncSelection = .all, pageSize: Int = 1000, maxClockDriftMilliseconds: UInt64? = nil) {
        self.selection = selection
        self.pageSize = max(1, pageSize)
        self.maxClockDriftMilliseconds = maxClockDriftMilliseconds
    }

    /// Pushes then pulls; with `dryRun`, computes the same counts and writes nothing anywhere. The
    /// report's A is the device and B the hub: ``SyncReport/aToB`` is the push (its conflicts are in
    /// the device's log), ``SyncReport/bToA`` the pull (its batches are the pages pulled).
    ///
    /// First the device checks the hub's cursors on it against its own history marks, and its cursors
    /// on the hub against the hub's marks (see the architecture document, "Trust and time"). A hub
    /// restored from a dump (or a standby that missed commits): the device pushes everything, then
    /// pulls everything. A device restored from a backup: it pulls what it lacks (its own lost pushes
    /// included), then pushes everything. `historyResync` says which and why.
    ///
    /// ```swift
    /// let report = try HubSynchronizer().sync(store, hub)
    /// print(report.aToB.newEntries, "pushed,", report.bToA.recordsChanged, "pulled")
    /// ```
    ///
    /// - Parameters:
    ///   - store: The device's replica.
    ///   - hub: The hub session of the device's account.
    ///   - dryRun: When true, nothing is written to the store or the hub.
    /// - Returns: What was pushed and pulled, the pages read, conflicts, whether a full resync ran
    ///   (``ApplyReport/horizonResync``).
    /// - Throws: `ConcordError` when the hub fails or cannot be reached (a push is all or nothing; pulled
    ///   pages already merged stay merged, and the next sync goes on from there), `ConcordError` when
    ///   the replica cannot be written.
    @discardableResult
    public func sync(_ store: Store, _ hub: Hub, dryRun: Bool = false) throws -> SyncReport {
        guard store.replicaID != hub.replicaID else { throw ConcordError.sameReplica(store.replicaID, store.directory) }
        let start = try begin(store, hub, dryRun: dryRun)
        let pushed: ApplyReport
        let pulled: HubPull.Outcome
        if start.deviceRestored && !start.hubRestored {
            // The device went back: first what it lacks (its own lost pushes come too, the hub's cursor on
            // it being reset), so its full push then cannot bring back keys deleted meanwhile.
            pulled = try pullStep(store, hub, start, dryRun: dryRun)
            pushed = try pushStep(store, hub, start, dryRun: dryRun)
        } else {
            pushed = try pushStep(store, hub, start, dryRun: dryRun)
            pulled = try pullStep(store, hub, start, dryRun: dryRun)
        }
        if !dryRun {
            try finish(store, hub, start, pulled)
            // The hub names no replica of its own: the device notes, for itself alone, which peer is its hub.
            try store.write { w in try w.noteHubPeer(hub.replicaID, account: hub.account) }
        }
        var report = SyncReport(aToB: pushed, bToA: pulled.directionReport, dryRun: dryRun)
        report.historyResync = start.historyResync
        return report
    }

    /// Sends the hub the device's changes it lacks (one direction).
    ///
    /// ```swift
    /// let pushed = try HubSynchronizer().push(store, hub)
    /// print(pushed.newEntries, "pushed,", pushed.recordsChanged, "hub rows changed")
    /// ```
    @discardableResult
    public func push(_ store: Store, _ hub: Hub, dryRun: Bool = false) throws -> ApplyReport {
        guard store.replicaID != hub.replicaID else { throw ConcordError.sameReplica(store.replicaID, store.directory) }
        let start = try begin(store, hub, dryRun: dryRun)
        var report = try pushStep(store, hub, start, dryRun: dryRun)
        report.historyResync = start.historyResync
        return report
    }

    /// Merges into the device the account's changes it lacks (one direction).
    ///
    /// ```swift
    /// let pulled = try HubSynchronizer().pull(store, hub)
    /// print(pulled.recordsChanged, "records changed in", pulled.batches, "pages")
    /// ```
    @discardableResult
    public func pull(_ store: Store, _ hub: Hub, dryRun: Bool = false) throws -> ApplyReport {
        guard store.replicaID != hub.replicaID else { throw ConcordError.sameReplica(store.replicaID, store.directory) }
        let start = try begin(store, hub, dryRun: dryRun)
        let outcome = try pullStep(store, hub, start, dryRun: dryRun)
        if !dryRun { try finish(store, hub, start, outcome) }
        var report = outcome.directionReport
        report.historyResync = start.historyResync
        return report
    }

    /// What the start of a sync found: each side's claims about the other checked, cursors reset where
    /// a side went back in time.
    struct Start {
        /// The hub's claims about the device, checked by the device.
        let device: ContactCheck
        /// The device's claims about the hub, checked against the hub's marks.
        let hub: ContactCheck
        /// The hub's cursors on the device (after any reset).
        let onDevice: HubDeviceCursors
        var deviceRestored: Bool { device.forcesResync }
        var hubRestored: Bool { hub.forcesResync }
        var historyResync: HistoryResync? {
            HistoryResync(device.causes(me: deviceID, peer: hubID) + hub.causes(me: hubID, peer: deviceID))
        }
        let deviceID: ReplicaID
        let hubID: ReplicaID
    }

    func begin(_ store: Store, _ hub: Hub, dryRun: Bool) throws -> Start {
        var onDevice = try hub.deviceCursors(store.replicaID)
        var device = try store.beginContact(with: hub.replicaID, claims: onDevice.knowledge, selection: selection, dryRun: dryRun)
        let mine = try store.peerCursors().cursors.filter { $0.peer == hub.replicaID }
        let (last, _, pruned) = try hub.accountHistory()
        let held = try hub.marks(mine.compactMap(\.mark))
        var check = ContactCheck()
        // A pull binds the cursor to the account's newest mark as covering the account's last seq; seqs
        // handed out without a push (rows written through the account's login) follow that mark, so the
        // hub holds a claimed mark when it has that id from a seq at or below the claim, and reaches it.
        check.claims =
            ClaimsCheck.of(mine, holds: { m in held[m.id].map { $0 <= m.seq && m.seq <= last } ?? false }, lastSeq: last, prunedThrough: pruned)
            .check
        check.unfinished = selection.scopes.contains { onDevice.reset.contains($0) } || onDevice.reset.contains(.allSuites)
        if onDevice.predatesMarks { device.predatesMarks = true }
        if !dryRun {
            if check.forcesResync { try store.resetCursors(on: hub.replicaID) }
            if device.forcesResync {
                try hub.resetCursors(on: store.replicaID)
                onDevice = try hub.deviceCursors(store.replicaID)
            }
        }
        return Start(device: device, hub: check, onDevice: onDevice, deviceID: store.replicaID, hubID: hub.replicaID)
    }

    /// The push: everything when either side went back in time, else the delta after the hub's proven cursor.
    private func pushStep(_ store: Store, _ hub: Hub, _ start: Start, dryRun: Bool) throws -> ApplyReport {
        let full = start.deviceRestored || start.hubRestored
        let knowledge = full ? PeerKnowledge.none : start.device.claims.proven
        let rows = try store.peerCursors().cursors.filter { $0.peer == hub.replicaID }
        let read = try DeltaReader.readReporting(
            from: store, for: hub.replicaID, alreadyMerged: knowledge, selection: selection, leaveOutEchoes: !full, onProgress: onProgress)
        let delta = read.bound(to: dryRun ? nil : try store.currentMark(givingTo: hub.replicaID, scopes: selection.scopes))
        var report = ApplyReport(source: store.replicaID, target: hub.replicaID)
        let meter = ProgressMeter(onProgress, phase: "push", total: delta.batch.entries.count, unit: "changes")
        meter.update(0)
        report.entries = delta.batch.entries.count
        report.batches = 1
        report.sourceSeqRead = delta.batch.toSeq
        report.journalEntriesRead = delta.journalEntriesRead
        report.refused = delta.leftOut
        // Replace the hub's cursor when it claims nothing (unbound, or reset): the push starts at 0.
        let unbound = selection.scopes.contains { scope in !start.onDevice.knowledge.items.contains { $0.scope == scope && $0.mark != nil } }
        if dryRun {
            report.recordsChanged = try HubPush.plan(delta.batch, to: hub)
        } else if !delta.batch.entries.isEmpty || !delta.leftOut.isEmpty || delta.journalEntriesRead >= Self.cursorLag || full || unbound {
            // Changes to send (or left out: the hub's cursor moves past them, so they are reported once), a
            // device the hub has not met (it registers), or a cursor to bind. Entries the hub sent (re-journaled
            // here) need no push: the hub's cursor on the device moves with the next
            // real push, or once the skipped entries cost `cursorLag` reads.
            let cursors = try store.peerCursors()
            var conflicts: [Conflict] = []
            let outcome: HubPush.Outcome
            do {
                outcome = try HubPush.push(
                    delta.batch, to: hub, pulled: { cursors.received(from: hub.replicaID, suite: $0) }, replacing: full || unbound
                ) { meetings in
                    conflicts = try logConflicts(meetings, store: store, hub: hub)
                }
            } catch let error as ConcordError {
                // Refused whole by the account's limits: the hub holds nothing of the push, nor the mark it
                // was bound to, so the device's rows on the hub go back to what they were.
                if error.code == .overQuota, !rows.isEmpty { try store.write { w in try w.restorePeerCursors(rows) } }
                throw error
            }
            report.recordsChanged = outcome.rowsChanged
            report.conflicts = conflicts
        }
        meter.finish()
        return report
    }

    /// The pull: everything when the hub went back in time, else the delta after the device's proven cursor.
    private func pullStep(_ store: Store, _ hub: Hub, _ start: Start, dryRun: Bool) throws -> HubPull.Outcome {
        var applier = BatchApplier(store: store)
        if let maxClockDriftMilliseconds { applier.maxClockDriftMilliseconds = maxClockDriftMilliseconds }
        var pull = HubPull(hub: hub, store: store, selection: selection, applier: applier, pageSize: pageSize)
        pull.onProgress = onProgress
        pull.resync = start.hubRestored
        // Tombstones for keys the hub no longer lists are right only when the hub's history is the one
        // the device merged: a restored hub lost those keys, it did not collect them.
        pull.horizonTombstones = !start.hubRestored
        let table = try store.peerCursors()
        pull.needsProof = selection.scopes.contains { table.cursor(peer: hub.replicaID, scope: $0)?.echoSafe != true }
        return try pull.run(dryRun: dryRun)
    }

    /// After the pull: the hub records the mark of its history the device holds now, and — when its
    /// cursors on the device wait for it — that the device merged the hub's history (so they may leave
    /// the device's own pushes out of pulls again).
    private func finish(_ store: Store, _ hub: Hub, _ start: Start, _ pulled: HubPull.Outcome) throws {
        let waiting = !start.onDevice.echoSafe.contains(.allSuites) && selection.scopes.contains { !start.onDevice.echoSafe.contains($0) }
        let table = try store.peerCursors()
        let held = table.cursor(peer: hub.replicaID, scope: selection.scopes[0])?.mark
        guard waiting || (held != nil && held?.id != start.onDevice.hubMark) else { return }
        let through = selection.scopes.map { table.received(from: hub.replicaID, scope: $0) }.min() ?? 0
        try hub.recordPull(by: store.replicaID, scopes: selection.scopes, through: through, mark: try store.currentMark(), hubMark: held)
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

}
