/// Merges a batch of remote journal entries into a replica in one write transaction
/// (see the architecture document, "Sync"): all of the batch or none of it.
///
/// For each entry after the replica's cursor on the source it stores what `RecordMerge` makes of the
/// local and remote records (the greater plain record, or a policy record's combination),
/// re-journals what changed as coming from the source (so changes travel A→B→C and observers see
/// origin `.sync(peer:)`), advances the clock within the allowed drift (reporting versions beyond it),
/// and logs the loser of every concurrent overwrite (concurrent increments or additions combine and
/// are not conflicts). A suite this process opened with a schema has its migrations applied to what
/// the batch brought in. In the same transaction it moves the cursor on the source and records how
/// far the source had merged this replica.
///
/// <!-- assume: let batch: RemoteBatch = given() -->
/// ```swift
/// let applier = BatchApplier(store: phone)
/// let preview = try applier.plan(batch)    // writes nothing
/// let report = try applier.apply(batch)
/// ```
package struct BatchApplier: Sendable {
    /// How a merge uses the cursor on the batch's source.
    package enum MergeMode: Sendable, Equatable {
        /// Entries at or before the cursor are skipped; the cursor moves forward.
        case delta
        /// Every entry is merged; a batch from the start of the source's journal replaces the cursor.
        case resync
        /// Every entry is merged; the cursor stays as it is.
        case ignoringCursor
    }

    package let store: Store
    /// The furthest ahead of the wall clock a merged version may push the clock (default: the store's option).
    package var maxClockDriftMilliseconds: UInt64
    /// Told how many of the batch's entries are merged, as `progressBase` plus the entries done.
    package var meter: ProgressMeter?
    /// The entries a sync merged before this batch (its meter counts both directions).
    package var progressBase = 0

    package init(store: Store) {
        self.store = store
        self.maxClockDriftMilliseconds = store.options.maxClockDriftMilliseconds
    }

    /// Merges `batch` into the store and returns what changed. `acknowledged` adds facts about how far
    /// the source has merged this replica that are newer than the batch's own knowledge (a sync that has
    /// just merged this replica's changes into the source), each with the source's mark after that merge
    /// when known; they move cursors only, never the conflict rule.
    ///
    /// The batch's knowledge of this replica counts only where it is proven (bound to a mark this
    /// replica holds): a replica restored from an earlier state finds its peers' claims about it false.
    /// With `mode` `.resync`, every entry is merged whatever the cursor on the source says, and a batch
    /// from the start of the source's journal replaces the cursor rather than moving it forward (see the
    /// architecture document, "Trust and time"); with `.ignoringCursor`, every entry is merged and the
    /// cursor is left as it is (a bundle older than what this replica merged of its source). The caller has checked this replica's cursors on the
    /// source (reset them when the source went back in time). In the same transaction, this replica's
    /// mark after the merge is written when the merge journaled something (`ApplyReport.markAfter`), and
    /// recorded as given to the source.
    @discardableResult
    package func apply(_ batch: RemoteBatch, acknowledged: PeerKnowledge = .none, mode: MergeMode = .delta) throws -> ApplyReport {
        try check(batch)
        let drift = maxClockDriftMilliseconds
        let report = try store.write { w in
            let cursors = try w.peerCursors()
            let now = w.wallClockMilliseconds
            let knowledge = try w.check(batch.knowledge).proven
            var (report, decisions) = try Self.decide(batch, rows: w, cursors: cursors, knowledge: knowledge, mode: mode, now: now, drift: drift)
            if batch.entries.contains(where: { $0.record.isSealed }) {
                try w.checkSealed(batch.entries.map { ($0.suite, $0.key, $0.record) }, from: batch.source)
            }
            report.skewedVersions = 0
            report.targetSeqBefore = w.lastSeq
            // The keys stored of each suite this process registered a schema for (their migrations run after).
            var stored: [String: [String]] = [:]
            var schemaSuite: (name: String, registered: Bool)?
            let (meter, base) = (meter, progressBase)
            func store() throws {
                for (index, decision) in decisions.enumerated() {
                    if index & 1023 == 0 { meter?.update(base + index) }
                    if w.observeRemote(hlc: decision.entry.record.version.hlc, maxDriftMilliseconds: drift) { report.skewedVersions += 1 }
                    if let record = decision.record {
                        try w.storeMerged(
                            record, suite: decision.entry.suite, key: decision.entry.key,
                            from: batch.source, replacing: decision.replacing)
                        report.recordsWritten += 1
                        let suite = decision.entry.suite
                        if schemaSuite?.name != suite { schemaSuite = (suite, w.schemas.entry(suite: suite) != nil) }
                        if schemaSuite?.registered == true { stored[suite, default: []].append(decision.entry.key) }
                    }
                    if let conflict = decision.conflict { try w.logConflict(conflict) }
                }
            }
            // Declarations that end a key's stay on this device journal its record again, so it goes out.
            if decisions.contains(where: { $0.record != nil && Self.declaresScope($0.entry) }) {
                let before = w.rejournaledCount
                try w.changingDeviceLocalKeys { try store() }
                report.recordsRejournaled = w.rejournaledCount - before
            } else {
                try store()
            }
            for (suite, keys) in stored.sorted(by: { $0.key < $1.key }) {
                if let schema = w.schemas.entry(suite: suite) { report.recordsMigrated += try schema.migrateIncoming(w, suite, keys) }
            }
            let scopes = batch.selection.scopes
            // A resync batch from the start of the source's journal replaces the cursor; a later part of
            // it (or any batch without a gap) moves the cursor on.
            let replaces = mode == .resync && batch.fromSeq == 0
            let before = report.targetSeqBefore
            for scope in scopes where mode != .ignoringCursor && (replaces || cursors.received(from: batch.source, scope: scope) >= batch.fromSeq) {
                var change = CursorChange()
                change.sinceIfNew = before
                change.received = (batch.toSeq, batch.mark, replaces)
                try w.changePeerCursor(peer: batch.source, scope: scope, change)
            }
            if mode != .ignoringCursor, !report.cursorAdvanced, let newer = batch.mark {
                // A batch after a gap: the cursor stays, but the newer mark (from a state that held the
                // cursor's own, which the caller checked) binds it.
                for scope in scopes where cursors.cursor(peer: batch.source, scope: scope)?.mark != nil {
                    var change = CursorChange()
                    change.received = (0, newer, false)
                    try w.changePeerCursor(peer: batch.source, scope: scope, change)
                }
            }
            // What the source provably merged of this replica is what it says (its cursors are the truth
            // about it); with the batch's mark, that proves a state of the source holding it.
            for item in knowledge.items {
                var change = CursorChange()
                change.sinceIfNew = before
                change.acknowledged = (item.seq, true)
                if let mark = batch.mark { change.proof = (item.seq, mark) }
                try w.changePeerCursor(peer: batch.source, scope: item.scope, change)
            }
            for item in acknowledged.items where item.replica == w.replica {
                var change = CursorChange()
                change.sinceIfNew = before
                change.acknowledged = (item.seq, false)
                if let mark = item.mark { change.proof = (item.seq, mark) }
                try w.changePeerCursor(peer: batch.source, scope: item.scope, change)
            }
            report.markAfter = try w.markHistory(givingTo: batch.source, scopes: scopes)
            report.targetSeqAfter = w.lastSeq
            return report
        }
        meter?.update(progressBase + batch.entries.count)
        return report
    }

    /// What `apply` would do, computed in a read-only snapshot: nothing is written.
    package func plan(_ batch: RemoteBatch, mode: MergeMode = .delta) throws -> ApplyReport {
        try check(batch)
        let now = store.options.clock.read()
        let drift = maxClockDriftMilliseconds
        let report = try store.read { r in
            let knowledge = try r.check(batch.knowledge).proven
            var report = try Self.decide(batch, rows: r, cursors: try r.peerCursors(), knowledge: knowledge, mode: mode, now: now, drift: drift).report
            (report.targetSeqBefore, report.targetSeqAfter) = (r.lastSeq, r.lastSeq)
            return report
        }
        meter?.update(progressBase + batch.entries.count)
        return report
    }

    /// Refuses a batch from this replica itself, one with two entries for a key (decisions are made
    /// against the replica as the batch found it, which holds only while each key comes once), and one
    /// holding a record the gate refuses — whatever transport brought it.
    private func check(_ batch: RemoteBatch) throws {
        guard batch.source != store.replicaID else { throw ConcordError.sameReplica(store.replicaID, store.directory) }
        var seen = Set<SuiteKey>(minimumCapacity: batch.entries.count)
        for entry in batch.entries where !seen.insert(SuiteKey(suite: entry.suite, key: entry.key)).inserted {
            throw ConcordError.duplicateKey(suite: entry.suite, key: entry.key)
        }
        try RecordGate(store: store).check(batch)
    }

    struct Decision {
        let entry: RemoteEntry
        /// What to store for the key (the remote record, or its merge with the local one); nil: nothing.
        let record: Record?
        let conflict: Conflict?
        /// The local record the entry replaces, with its journal seq (read while deciding, so storing it
        /// needs no second lookup), or nil when the key is new here.
        var replacing: StoredRecord? = nil
    }

    /// The merge decisions for `batch` against the replica seen through `rows`. Pure apart from reading.
    static func decide(
        _ batch: RemoteBatch, rows: some ReplicaRows, cursors: PeerCursorTable, knowledge: PeerKnowledge, mode: MergeMode,
        now: UInt64, drift: UInt64
    ) throws -> (report: ApplyReport, decisions: [Decision]) {
        let target = rows.replica
        let source = batch.source
        var report = ApplyReport(source: source, target: target)
        report.entries = batch.entries.count
        report.batches = 1
        report.sourceSeqRead = batch.toSeq
        for scope in batch.selection.scopes
        where mode == .ignoringCursor || !(mode == .resync && batch.fromSeq == 0) && cursors.received(from: source, scope: scope) < batch.fromSeq {
            report.cursorAdvanced = false
        }
        let bound = HybridClock.bound(nowMilliseconds: now, maxDriftMilliseconds: drift)
        var decisions: [Decision] = []
        decisions.reserveCapacity(batch.entries.count)
        let deviceLocal = try deviceLocalKeys(after: batch, rows: rows)
        // The cursor on the source for the suite of the entry before (a batch's entries mostly share one).
        var receivedIn: (suite: String, seq: UInt64)?
        func received(_ suite: String) -> UInt64 {
            if let receivedIn, receivedIn.suite == suite { return receivedIn.seq }
            let seq = cursors.received(from: source, suite: suite)
            receivedIn = (suite, seq)
            return seq
        }
        for entry in batch.entries {
            guard batch.selection.includes(entry.suite) else { continue }
            guard mode != .delta || entry.seq > received(entry.suite) else {
                report.alreadyMerged += 1
                continue
            }
            // A record of a key that stays on this device is not merged, whoever sent it (a peer that had
            // not seen the declaration yet, an older bundle): this replica keeps its own.
            if !deviceLocal.isEmpty, deviceLocal.isDeviceLocal(suite: entry.suite, key: entry.key) {
                report.deviceLocalIgnored += 1
                continue
            }
            let remote = entry.record
            if remote.version.hlc > bound {
                report.skewedVersions += 1
                report.maxSkewMilliseconds = max(report.maxSkewMilliseconds, remote.version.milliseconds - now)
            }
            report.recordsRead += 1
            guard let local = try rows.storedRecord(suite: entry.suite, key: entry.key) else {
                report.recordsChanged += 1
                decisions.append(Decision(entry: entry, record: remote, conflict: nil))
                continue
            }
            guard local.record != remote else {
                decisions.append(Decision(entry: entry, record: nil, conflict: nil, replacing: local))
                continue
            }
            let merged = RecordMerge.merge(local.record, remote)
            let changed = merged != local.record
            if changed { report.recordsChanged += 1 }
            var conflict: Conflict?
            // A policy contribution has one writer, whose later state holds its earlier one: never a conflict.
            if !(remote.isSealed && SuiteSealing.isContributionKey(entry.key)), let lost = RecordMerge.overwrite(local.record, remote),
                try lost.concurrent ?? isConcurrent(local: local, remote: remote, entry: entry, batch: batch, knowledge: knowledge, target: target, rows: rows)
            {
                let localSource = try rows.journalSource(seq: local.seq) ?? .sync(peer: target)
                let localLost = lost.loser == (local.record.isPlain ? local.record : local.record.state?.baseRecord)
                let localSide = ConflictSide(record: localLost ? lost.loser : lost.winner, source: localSource)
                let remoteSide = ConflictSide(record: localLost ? lost.winner : lost.loser, source: .sync(peer: source))
                conflict = Conflict(
                    suite: entry.suite, key: entry.key,
                    winner: localLost ? remoteSide : localSide, loser: localLost ? localSide : remoteSide,
                    peer: source, detectedMilliseconds: now)
                report.conflicts.append(conflict!)
            }
            decisions.append(Decision(entry: entry, record: changed ? merged : nil, conflict: conflict, replacing: local))
        }
        return (report, decisions)
    }

    /// Whether `entry` is a device-local declaration (a record of the reserved suite saying which keys stay on their device).
    static func declaresScope(_ entry: RemoteEntry) -> Bool {
        entry.suite == ReservedSuite.name && DeviceLocalKeys.isDeclaration(entry.key)
    }

    /// The device-local declarations this replica will hold once `batch` is merged: its own, with the
    /// batch's declarations merged in (by the merge rule, as storing them will). Deciding by these
    /// makes a batch that carries a declaration and the key it covers come out alike on every replica,
    /// whichever order they were written in.
    static func deviceLocalKeys(after batch: RemoteBatch, rows: some ReplicaRows) throws -> DeviceLocalKeys {
        var keys = try rows.deviceLocalKeys()
        for entry in batch.entries where declaresScope(entry) {
            keys.apply(reservedKey: entry.key, record: RecordMerge.merge(try rows.record(suite: entry.suite, key: entry.key), entry.record))
        }
        return keys
    }

    /// A local record the source had not seen when it read the batch (stored here after the
    /// source's proven cursor on this replica, `knowledge`) was written concurrently with the source's
    /// record. Not concurrent: a local record the source wrote or sent, or a remote record this replica wrote.
    static func isConcurrent(
        local: StoredRecord, remote: Record, entry: RemoteEntry, batch: RemoteBatch, knowledge: PeerKnowledge,
        target: ReplicaID, rows: some ReplicaRows
    ) throws -> Bool {
        guard local.seq > knowledge.merged(of: target, suite: entry.suite) else { return false }
        guard local.record.version.replica != batch.source, remote.version.replica != target else { return false }
        return try rows.journalSource(seq: local.seq) != .sync(peer: batch.source)
    }
}
