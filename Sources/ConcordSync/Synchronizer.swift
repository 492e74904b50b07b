/// Syncs two replicas both reachable from this process (see the architecture document, "Delta sync").
///
/// `sync` reads one snapshot of each replica (the entries after the other's cursor), then merges
/// A's batch into B and B's batch into A, each in its own write transaction. It never holds two
/// write transactions at once, so any number of syncs on overlapping replicas, in any processes,
/// cannot deadlock; an interrupted sync leaves each replica either untouched or with one whole batch
/// merged, and cursors only ever move forward, so the next sync finishes the job.
///
/// ```swift
/// let laptop = try Store(path: "/data/laptop"), phone = try Store(path: "/data/phone")
/// let report = try Synchronizer().sync(laptop, phone)
/// print("sent \(report.aToB.entries) → and \(report.bToA.entries) ←, \(report.conflicts.count) conflicts")
/// ```
public struct Synchronizer: Sendable {
    /// The suites a sync covers. The default is every suite.
    public var selection: SyncSelection
    /// How far ahead of a receiver's wall clock a merged version may push its clock (nil: each store's option).
    public var maxClockDriftMilliseconds: UInt64?
    /// Called as the sync goes: first `phase` "read", the seqs of both journals scanned for the
    /// deltas (from each cursor to each last seq), then "sync", `done` of `total` changes merged,
    /// where the total is the changes both deltas hold; each phase last with `done == total`.
    ///
    /// ```swift
    /// var synchronizer = Synchronizer()
    /// synchronizer.onProgress = { p in print("\(p.done)/\(p.total) changes merged") }
    /// try synchronizer.sync(laptop, phone)
    /// ```
    public var onProgress: ProgressHandler?

    /// A synchronizer of the suites of `selection`.
    ///
    /// - Parameters:
    ///   - selection: The suites to sync. The default is every suite.
    ///   - maxClockDriftMilliseconds: How far ahead of a receiver's wall clock a merged version may
    ///     push its clock; nil takes each store's own option.
    public init(selection: SyncSelection = .all, maxClockDriftMilliseconds: UInt64? = nil) {
        self.selection = selection
        self.maxClockDriftMilliseconds = maxClockDriftMilliseconds
    }

    /// Sends each replica the changes it lacks, so both hold the same records for the selected suites.
    /// With `dryRun`, computes the same report and writes nothing.
    ///
    /// Each replica first checks the other's cursors on it against its history marks (see the
    /// architecture document, "Trust and time"). When one of them went back in time — restored from a
    /// backup or a snapshot, or a copy of a replica that kept running — both resend everything, the
    /// cursors on it are replaced, and the report's `historyResync` says which replica and why.
    ///
    /// ```swift
    /// let report = try Synchronizer().sync(phone, watch)
    /// ```
    ///
    /// - Parameters:
    ///   - a: One replica.
    ///   - b: The other replica.
    ///   - dryRun: When true, nothing is written to either replica.
    /// - Returns: What each direction merged (`aToB`, `bToA`): entries, records changed, conflicts, clock
    ///   skew, the records a side's reader left out (`refused`: stored there before the gate's rules),
    ///   and `historyResync` when the replicas resent everything.
    /// - Throws: ``ConcordError`` `.sameReplica` when both are one replica (a copy of a directory, say);
    ///   `ConcordError` when a replica cannot be read or written. Each direction is merged whole or
    ///   not at all, and the next sync finishes what an interrupted one left.
    @discardableResult
    public func sync(_ a: Store, _ b: Store, dryRun: Bool = false) throws -> SyncReport {
        guard a.replicaID != b.replicaID else { throw ConcordError.sameReplica(a.replicaID, a.directory) }
        let scopes = selection.scopes
        // Each side checks the other's claims about its history, before anything is read or skipped.
        let checkA = try a.beginContact(with: b.replicaID, claims: PeerKnowledge(received: try b.peerCursors()), selection: selection, dryRun: dryRun)
        let checkB = try b.beginContact(with: a.replicaID, claims: PeerKnowledge(received: try a.peerCursors()), selection: selection, dryRun: dryRun)
        let resync = checkA.forcesResync || checkB.forcesResync
        if resync && !dryRun {
            if checkA.forcesResync { try b.resetCursors(on: a.replicaID) }
            if checkB.forcesResync { try a.resetCursors(on: b.replicaID) }
        }
        let history = HistoryResync(checkA.causes(me: a.replicaID, peer: b.replicaID) + checkB.causes(me: b.replicaID, peer: a.replicaID))
        // Both deltas are read before either mark is written: a replica whose journal cannot be read
        // is left as it was.
        let mergedByB = resync ? PeerKnowledge.none : PeerKnowledge(received: try b.peerCursors())
        let reading = try readMeter(a, b, mergedByB: mergedByB, resync: resync)
        let readA = try DeltaReader.read(
            from: a, for: b.replicaID, alreadyMerged: mergedByB, selection: selection, leaveOutEchoes: !resync,
            progress: reading.map { ($0.meter, 0) })
        let readB = try DeltaReader.read(
            from: b, for: a.replicaID, alreadyMerged: resync ? .none : readA.batch.knowledge, selection: selection, leaveOutEchoes: !resync,
            progress: reading.map { ($0.meter, $0.rangeA) })
        reading?.meter.finish()
        let fromA = readA.bound(to: dryRun ? nil : try a.currentMark(givingTo: b.replicaID, scopes: scopes))
        let fromB = readB.bound(to: dryRun ? nil : try b.currentMark(givingTo: a.replicaID, scopes: scopes))
        let meter = ProgressMeter(onProgress, phase: "sync", total: fromA.batch.entries.count + fromB.batch.entries.count, unit: "changes")
        meter.update(0)
        var intoB = applier(b)
        var intoA = applier(a)
        (intoB.meter, intoA.meter, intoA.progressBase) = (meter, meter, fromA.batch.entries.count)
        var aToB = dryRun ? try intoB.plan(fromA.batch, mode: resync ? .resync : .delta) : try intoB.apply(fromA.batch, mode: resync ? .resync : .delta)
        aToB.refused = fromA.leftOut
        aToB.journalEntriesRead = fromA.journalEntriesRead
        // B has now merged A through the end of A's batch, as B's mark after the merge holds it: A
        // records that with B's batch.
        let merged = PeerKnowledge(
            items: aToB.cursorAdvanced ? scopes.map { .init(replica: a.replicaID, scope: $0, seq: fromA.batch.toSeq, mark: aToB.markAfter) } : [])
        // If nothing was written to B between its snapshot and the merge, B's entries after the snapshot
        // are only A's changes re-journaled (or combined with B's snapshot, which A merges too): A's
        // cursor on B may skip them rather than read them next time — bound to B's mark after the merge,
        // which covers them — unless B's schema migrated what it received, or B journaled records again
        // whose keys stopped being device-local, which A has not seen.
        var batchB = fromB.batch
        if !dryRun, aToB.targetSeqBefore == batchB.toSeq, aToB.targetSeqAfter > batchB.toSeq, aToB.recordsMigrated == 0,
            aToB.recordsRejournaled == 0,
            let after = aToB.markAfter, after.seq == aToB.targetSeqAfter
        {
            batchB = RemoteBatch(
                source: batchB.source, selection: batchB.selection, fromSeq: batchB.fromSeq, toSeq: aToB.targetSeqAfter,
                entries: batchB.entries, knowledge: batchB.knowledge, mark: after)
        }
        var bToA =
            dryRun ? try intoA.plan(batchB, mode: resync ? .resync : .delta) : try intoA.apply(batchB, acknowledged: merged, mode: resync ? .resync : .delta)
        bToA.refused = fromB.leftOut
        bToA.journalEntriesRead = fromB.journalEntriesRead
        if !dryRun, bToA.cursorAdvanced, let after = bToA.markAfter {
            // A has merged B through B's batch, as A's mark after the merge holds it. B learns it now when
            // its cursor on A still waits for that proof (a first sync, or after a resync); otherwise the
            // next sync tells it.
            let waiting = try b.read { r in try scopes.contains { scope in try r.peerCursors().cursor(peer: a.replicaID, scope: scope)?.echoSafe != true } }
            if waiting {
                try b.write { w in
                    for scope in scopes {
                        var change = CursorChange()
                        change.acknowledged = (batchB.toSeq, false)
                        change.proof = (batchB.toSeq, after)
                        try w.changePeerCursor(peer: a.replicaID, scope: scope, change)
                    }
                }
            }
        }
        meter.finish()
        var report = SyncReport(aToB: aToB, bToA: bToA, dryRun: dryRun)
        report.historyResync = history
        return report
    }

    /// Merges into `target` the changes of `source` it lacks (one direction only).
    ///
    /// ```swift
    /// let report = try Synchronizer().pull(from: phone, into: watch)
    /// ```
    ///
    /// - Parameters:
    ///   - source: The replica to read changes from (it is not written).
    ///   - target: The replica to merge them into.
    ///   - dryRun: When true, nothing is written.
    /// - Returns: What the merge changed, and how many journal entries were read to find the changes
    ///   (``ApplyReport/journalEntriesRead``).
    /// - Throws: ``ConcordError`` `.sameReplica` when both are one replica; `ConcordError` when a replica
    ///   cannot be read or written (the merge is whole or not at all).
    @discardableResult
    public func pull(from source: Store, into target: Store, dryRun: Bool = false) throws -> ApplyReport {
        guard source.replicaID != target.replicaID else { throw ConcordError.sameReplica(source.replicaID, source.directory) }
        // Each side checks the other's claims about it: the source's cursors on a restored target
        // would leave out the writes the target lost.
        let checkSource = try source.beginContact(
            with: target.replicaID, claims: PeerKnowledge(received: try target.peerCursors()), selection: selection, dryRun: dryRun)
        let checkTarget = try target.beginContact(
            with: source.replicaID, claims: PeerKnowledge(received: try source.peerCursors()), selection: selection, dryRun: dryRun)
        let resync = checkSource.forcesResync || checkTarget.forcesResync
        if resync && !dryRun {
            if checkSource.forcesResync { try target.resetCursors(on: source.replicaID) }
            if checkTarget.forcesResync { try source.resetCursors(on: target.replicaID) }
        }
        let delta = try DeltaReader.read(
            from: source, for: target.replicaID, alreadyMerged: resync ? .none : PeerKnowledge(received: try target.peerCursors()),
            selection: selection, leaveOutEchoes: !resync
        ).bound(to: dryRun ? nil : try source.currentMark(givingTo: target.replicaID, scopes: selection.scopes))
        var applier = applier(target)
        applier.meter = ProgressMeter(onProgress, phase: "sync", total: delta.batch.entries.count, unit: "changes")
        applier.meter?.update(0)
        var report = dryRun ? try applier.plan(delta.batch, mode: resync ? .resync : .delta) : try applier.apply(delta.batch, mode: resync ? .resync : .delta)
        applier.meter?.finish()
        report.refused = delta.leftOut
        report.journalEntriesRead = delta.journalEntriesRead
        report.historyResync = HistoryResync(
            checkSource.causes(me: source.replicaID, peer: target.replicaID) + checkTarget.causes(me: target.replicaID, peer: source.replicaID))
        return report
    }

    /// The meter of a sync's "read" phase (nil without `onProgress`): the seqs from each side's start to
    /// its last seq, A's range first.
    private func readMeter(_ a: Store, _ b: Store, mergedByB: PeerKnowledge, resync: Bool) throws -> (meter: ProgressMeter, rangeA: Int)? {
        guard let onProgress else { return nil }
        let mergedByA = resync ? PeerKnowledge.none : PeerKnowledge(received: try a.peerCursors())
        let rangeA = try DeltaReader.seqsToRead(in: a, alreadyMerged: mergedByB, selection: selection)
        let rangeB = try DeltaReader.seqsToRead(in: b, alreadyMerged: mergedByA, selection: selection)
        let meter = ProgressMeter(onProgress, phase: "read", total: rangeA + rangeB, unit: "seqs")
        meter.update(0)
        return (meter, rangeA)
    }

    private func applier(_ store: Store) -> BatchApplier {
        var applier = BatchApplier(store: store)
        if let maxClockDriftMilliseconds { applier.maxClockDriftMilliseconds = maxClockDriftMilliseconds }
        return applier
    }
}
