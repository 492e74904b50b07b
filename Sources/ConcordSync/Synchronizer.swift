import ConcordStore

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
    /// ```swift
    /// let report = try Synchronizer().sync(phone, watch)
    /// ```
    ///
    /// - Parameters:
    ///   - a: One replica.
    ///   - b: The other replica.
    ///   - dryRun: When true, nothing is written to either replica.
    /// - Returns: What each direction merged (`aToB`, `bToA`): entries, records changed, conflicts, clock
    ///   skew, and the records a side's reader left out (`refused`: stored there before the gate's rules).
    /// - Throws: `SyncError.sameReplica` when both are one replica (a copy of a directory, say);
    ///   `StoreError` when a replica cannot be read or written. Each direction is merged whole or
    ///   not at all, and the next sync finishes what an interrupted one left.
    @discardableResult
    public func sync(_ a: Store, _ b: Store, dryRun: Bool = false) throws -> SyncReport {
        guard a.replicaID != b.replicaID else { throw SyncError.sameReplica(a.replicaID, a.directory) }
        let fromA = try DeltaReader.read(from: a, for: b.replicaID, alreadyMerged: PeerKnowledge(received: try b.peerCursors()), selection: selection)
        let fromB = try DeltaReader.read(from: b, for: a.replicaID, alreadyMerged: fromA.batch.knowledge, selection: selection)
        let intoB = applier(b)
        let intoA = applier(a)
        var aToB = dryRun ? try intoB.plan(fromA.batch) : try intoB.apply(fromA.batch)
        aToB.refused = fromA.leftOut
        // B has now merged A through the end of A's batch: A records that with B's batch.
        let merged = PeerKnowledge(items: aToB.cursorAdvanced ? selection.scopes.map { .init(replica: a.replicaID, scope: $0, seq: fromA.batch.toSeq) } : [])
        // If nothing was written to B between its snapshot and the merge, B's entries after the snapshot
        // are only A's changes re-journaled (or combined with B's snapshot, which A merges too): A's
        // cursor on B may skip them rather than read them next time — unless B's schema migrated what
        // it received, which A has not seen.
        var batchB = fromB.batch
        if !dryRun, aToB.targetSeqBefore == batchB.toSeq, aToB.targetSeqAfter > batchB.toSeq, aToB.recordsMigrated == 0 {
            batchB = RemoteBatch(
                source: batchB.source, selection: batchB.selection, fromSeq: batchB.fromSeq, toSeq: aToB.targetSeqAfter,
                entries: batchB.entries, knowledge: batchB.knowledge)
        }
        var bToA = dryRun ? try intoA.plan(batchB) : try intoA.apply(batchB, acknowledged: merged)
        bToA.refused = fromB.leftOut
        return SyncReport(aToB: aToB, bToA: bToA, journalEntriesRead: fromA.journalEntriesRead + fromB.journalEntriesRead, dryRun: dryRun)
    }

    /// Merges into `target` the changes of `source` it lacks (one direction only).
    ///
    /// ```swift
    /// let (report, _) = try Synchronizer().pull(from: phone, into: watch)
    /// ```
    ///
    /// - Parameters:
    ///   - source: The replica to read changes from (it is not written).
    ///   - target: The replica to merge them into.
    ///   - dryRun: When true, nothing is written.
    /// - Returns: What the merge changed, and how many journal entries were read to find the changes.
    /// - Throws: `SyncError.sameReplica` when both are one replica; `StoreError` when a replica
    ///   cannot be read or written (the merge is whole or not at all).
    @discardableResult
    public func pull(from source: Store, into target: Store, dryRun: Bool = false) throws -> (report: ApplyReport, journalEntriesRead: Int) {
        guard source.replicaID != target.replicaID else { throw SyncError.sameReplica(source.replicaID, source.directory) }
        let delta = try DeltaReader.read(
            from: source, for: target.replicaID, alreadyMerged: PeerKnowledge(received: try target.peerCursors()), selection: selection)
        let applier = applier(target)
        var report = dryRun ? try applier.plan(delta.batch) : try applier.apply(delta.batch)
        report.refused = delta.leftOut
        return (report, delta.journalEntriesRead)
    }

    private func applier(_ store: Store) -> BatchApplier {
        var applier = BatchApplier(store: store)
        if let maxClockDriftMilliseconds { applier.maxClockDriftMilliseconds = maxClockDriftMilliseconds }
        return applier
    }
}
