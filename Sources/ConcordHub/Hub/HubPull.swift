import Concord
import Foundation

/// Brings a device the account's changes after its cursor on the hub, in pages of bounded size,
/// all read from one snapshot of the hub (REPEATABLE READ): each page is a `RemoteBatch` from the
/// hub's replica id, merged locally by `BatchApplier` in one write transaction (re-journaled for
/// the device's other peers, conflicts logged, the cursor moved), exactly as a peer's batch is.
///
/// Rows the device pushed itself are left out, as a peer leaves out what it received from the target,
/// while the hub's cursor on the device is echo-safe (the device provably holds what it pushed; a row
/// the device wrote that another device pushed always comes: the device may have been restored from
/// a backup taken before it). The batch carries the hub's cursor on the device (read in the same
/// snapshot), the line between local records the hub had seen and concurrent ones, and the account's
/// history mark, which the device binds its cursor to. In a resync (the architecture document, "Trust
/// and time") every row comes, and the first page replaces the device's cursor.
///
/// A device whose cursor is behind the account's tombstone-collection horizon may have missed
/// deletes whose tombstones are gone: before the delta it gets a tombstone for every key it holds
/// that the hub had merged from it or sent it, and that the hub no longer has (a full resync), so
/// a device offline past the retention cannot bring deleted keys back.
///
/// Every row passes the gate (`HubRow`, `RecordGate`), and a row of an encrypted suite its
/// declaration and seal (`HubSealedSuites`), before it joins a page: a row refused is left out and
/// named in the outcome, and the sound rows merge. The cursor moves past a damaged row
/// (it is reported by the pull that meets it; a repaired row gets a new seq and comes again), but
/// stops just before a row plausibly written by a newer Concord, so that row arrives once this device
/// is upgraded; the sound rows after it merge now and again then (merging is idempotent), and each
/// pull reports it until then.
struct HubPull {
    let hub: Hub
    let store: Store
    let selection: SyncSelection
    let applier: BatchApplier
    let pageSize: Int
    /// Everything, whatever the device's cursor on the hub says (a replica was found restored).
    var resync = false
    /// Whether a device behind the tombstone horizon gets tombstones for keys the hub no longer lists
    /// (false when the hub went back in time: it lost those keys, it did not collect them).
    var horizonTombstones = true
    /// The device's cursor on the hub waits for a proof that the hub merged its history: merge a page
    /// (it carries the hub's cursor on the device) even when nothing is new.
    var needsProof = false
    /// Told after each page how far the pull has come: `phase` "pull", in seqs of the account, from
    /// the device's cursor to the account's last seq as the pull began.
    var onProgress: ProgressHandler?

    struct Outcome {
        var report: ApplyReport
        var pages = 0
        var rowsRead = 0
        var resync = false
        /// The account's last seq in the pull's snapshot: every change up to it is merged now.
        var last: UInt64 = 0

        /// The pull as a sync direction: its pages are its batches.
        var directionReport: ApplyReport {
            var out = report
            out.batches = pages
            out.horizonResync = resync
            out.sourceSeqRead = last
            return out
        }
    }

    /// The gate the rows pass: this store's.
    var gate: RecordGate { RecordGate(store: store) }

    func run(dryRun: Bool) throws -> Outcome {
        let db = hub.db
        return try ConcordError.fromPostgres {
            try db.transaction(.snapshot) {
                let account = try db.execute(
                    "SELECT last_seq, mark, marks_pruned, horizon_seq FROM concord_hub.accounts WHERE name = $1",
                    [.text(hub.account)], operation: "read the account")
                guard account.count == 1 else { throw ConcordError.accountNotVisible(account: hub.account, role: db.user) }
                let (last, mark, _) = try Hub.history(account, 0)
                let horizon = UInt64(max(0, try account.int64(0, 3)))
                let deviceCursors = try hub.deviceCursors(store.replicaID)
                let knowledge = deviceCursors.knowledge
                let cursors = try store.peerCursors()
                let start = resync ? 0 : selection.scopes.map { cursors.received(from: hub.replicaID, scope: $0) }.min() ?? 0
                var outcome = Outcome(report: ApplyReport(source: hub.replicaID, target: store.replicaID), last: last)
                let behind = horizonTombstones && selection.scopes.contains { cursors.received(from: hub.replicaID, scope: $0) < horizon }
                if behind {
                    outcome.resync = true
                    let tombstones = try resyncTombstones(cursors: cursors, knowledge: knowledge, horizon: horizon, last: last)
                    if !tombstones.isEmpty {
                        let batch = RemoteBatch(
                            source: hub.replicaID, selection: selection, fromSeq: start, toSeq: start,
                            entries: tombstones, knowledge: knowledge, mark: mark)
                        add(try merge(batch, dryRun: dryRun), to: &outcome)
                    }
                }
                // With nothing to pull, a write only to record how far the hub merged this device
                // (which local tombstone collection waits for) is made once it lags far or long.
                let now = UInt64(Date().timeIntervalSince1970 * 1000)
                var acknowledged =
                    needsProof
                    || selection.scopes.contains { scope in
                        let known = knowledge.merged(of: store.replicaID, scope: scope)
                        let cursor = cursors.cursor(peer: hub.replicaID, scope: scope)
                        let recorded = cursor?.acknowledged ?? 0
                        return known > recorded && (known - recorded >= 1000 || now &- (cursor?.updatedMilliseconds ?? 0) > 3_600_000)
                    }
                let meter = ProgressMeter(onProgress, phase: "pull", total: last > start ? Int(clamping: last - start) : 0, unit: "seqs")
                meter.update(0)
                guard start < last || acknowledged || resync else {
                    meter.finish()
                    return outcome
                }
                // Pages that hold only this device's own pushes change nothing here: they are merged
                // (a write transaction, to move the cursor past them) only with the next page that
                // has changes, or once they add up to `cursorLag` rows — not after every push.
                var from = start
                var merged = start
                var skipped = 0
                let gate = gate
                let sealedSuites = try HubSealedSuites(store: store, hub: hub, gate: gate)
                // Where the cursor stops: just before the first row a newer Concord wrote.
                var hold: UInt64?
                // Damaged rows refused since the last merged page: merge, so the cursor moves past them.
                var damagedSince = false
                repeat {
                    var parameters: [PostgresValue] = [
                        .text(hub.account), .int8(Int64(clamping: from)), .int8(Int64(clamping: last)),
                        .int8(Int64(pageSize))
                    ]
                    var filter = ""
                    if let suites = selection.suites {
                        parameters.append(.textArray(suites))
                        filter = "AND suite = ANY($5)"
                    }
                    let rows = try db.execute(
                        """
                        SELECT \(HubRow.columns) FROM concord_hub.records
                        WHERE account = $1 AND seq > $2 AND seq <= $3 \(filter) ORDER BY seq LIMIT $4
                        """, parameters, operation: "pull")
                    var entries: [RemoteEntry] = []
                    entries.reserveCapacity(rows.count)
                    for row in 0..<rows.count {
                        let entry: RemoteEntry
                        let checked = try HubRow(rows, row).entry(gate: gate).flatMap { sound in
                            sealedSuites.refusal(of: sound).map { .failure($0) } ?? .success(sound)
                        }
                        switch checked {
                        case .success(let sound): entry = sound
                        case .failure(let refused):
                            outcome.report.refused.append(refused)
                            if refused.refusal == .writtenByNewerConcord {
                                hold = min(hold ?? .max, (refused.seq ?? 1) - 1)
                            } else {
                                damagedSince = true
                            }
                            continue
                        }
                        // A plain row this device pushed is one it holds (or newer) while the hub's cursor on it is
                        // echo-safe; a policy row may combine it with other devices' changes, so it always comes.
                        if !resync, entry.record.isPlain, try rows.bytes(row, HubRow.pushedByColumn) == store.replicaID.bytes,
                            deviceCursors.mayLeaveOutOwn(seq: entry.seq, selection: selection)
                        {
                            skipped += 1
                            continue
                        }
                        entries.append(entry)
                    }
                    outcome.rowsRead += rows.count
                    let to = rows.count == pageSize ? UInt64(max(0, try rows.int64(rows.count - 1, 0))) : last
                    if !entries.isEmpty || skipped >= HubSynchronizer.cursorLag || acknowledged || damagedSince || resync {
                        let end = min(to, hold ?? .max)
                        let batch = RemoteBatch(
                            source: hub.replicaID, selection: selection, fromSeq: min(merged, end), toSeq: end, entries: entries, knowledge: knowledge,
                            mark: mark)
                        add(try merge(batch, dryRun: dryRun), to: &outcome)
                        (merged, skipped, acknowledged, damagedSince) = (to, 0, false, false)
                    }
                    from = to
                    meter.update(to > start ? Int(clamping: to - start) : 0)
                } while from < last || (resync && outcome.pages == 0)
                meter.finish()
                return outcome
            }
        }
    }

    private func merge(_ batch: RemoteBatch, dryRun: Bool) throws -> ApplyReport {
        let mode: BatchApplier.MergeMode = resync ? .resync : .delta
        return dryRun ? try applier.plan(batch, mode: mode) : try applier.apply(batch, mode: mode)
    }

    private func add(_ page: ApplyReport, to outcome: inout Outcome) {
        outcome.pages += 1
        outcome.report.add(page)
    }

    /// Tombstones for the keys this device holds alive that the hub had (it merged them from the
    /// device, or sent them) and has no longer: their tombstones were collected. Each one's version is
    /// just above the local record's (hlc + 1, the hub's id): it beats that record, and loses to any
    /// write made after the collected delete.
    private func resyncTombstones(cursors: PeerCursorTable, knowledge: PeerKnowledge, horizon: UInt64, last: UInt64) throws -> [RemoteEntry] {
        var filter = ""
        var parameters: [PostgresValue] = [.text(hub.account)]
        if let suites = selection.suites {
            parameters.append(.textArray(suites))
            filter = "AND suite = ANY($2)"
        }
        let rows = try hub.db.execute(
            "SELECT suite, key FROM concord_hub.records WHERE account = $1 \(filter)", parameters, operation: "list the account's keys")
        var onHub = Set<SuiteKey>(minimumCapacity: rows.count)
        for row in 0..<rows.count {
            onHub.insert(SuiteKey(suite: String(decoding: try rows.bytes(row, 0), as: UTF8.self), key: String(decoding: try rows.bytes(row, 1), as: UTF8.self)))
        }
        var out: [RemoteEntry] = []
        let device = store.replicaID
        let gate = gate
        try store.read { r in
            try r.scanJournal(after: 0) { entry in
                guard selection.includes(entry.suite), !entry.record.isTombstone, entry.record.version.hlc < HybridClock.maxHLC,
                    cursors.received(from: hub.replicaID, suite: entry.suite) < horizon,
                    !onHub.contains(SuiteKey(suite: entry.suite, key: entry.key))
                else { return true }
                let hubHadIt = entry.seq <= knowledge.merged(of: device, suite: entry.suite) || entry.source == .sync(peer: hub.replicaID)
                guard hubHadIt else { return true }
                let tombstone = Record(version: Version(hlc: entry.record.version.hlc + 1, replica: hub.replicaID), valueBytes: nil)
                let resync = RemoteEntry(seq: last, suite: entry.suite, key: entry.key, record: tombstone)
                // A key stored before the gate's rules (holding U+0000, say) gets none: the gate would refuse the page.
                if gate.refusal(of: resync) == nil { out.append(resync) }
                return true
            }
        }
        return out
    }
}
