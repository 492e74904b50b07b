/// A batch read from a replica's journal, with what reading it cost.
///
/// <!-- assume: let merged = PeerKnowledge(received: try phone.peerCursors()) -->
/// ```swift
/// let delta = try DeltaReader.read(from: laptop, for: phone.replicaID, alreadyMerged: merged)
/// print(delta.batch.entries.count, "changes after reading", delta.journalEntriesRead, "journal entries")
/// ```
package struct Delta: Sendable {
    package let batch: RemoteBatch
    /// Journal entries read to build the batch: the entries after the cursor, whichever were sent.
    package let journalEntriesRead: Int
    /// False when the read stopped at a size limit: the batch ends before the source's last seq, and
    /// the next part starts after its `toSeq`.
    package var complete = true
    /// Entries left out because the gate refuses them (records stored before its rules): the batch's
    /// range covers them, so they are not read again.
    package var leftOut: [ConcordError] = []
    /// With `countOnly`, the entries the batch would hold (it holds none).
    package var counted = 0

    /// This delta with its batch bound to `mark`, committed after the read and before the batch is sent
    /// (it covers at least the batch's end: seqs only grow). Reading first means a store whose journal
    /// cannot be read writes nothing, not even a mark.
    package func bound(to mark: HistoryMark?) -> Delta {
        guard let mark else { return self }
        precondition(mark.seq >= batch.toSeq, "a mark covers the batch it binds")
        let b = batch
        let marked = RemoteBatch(
            source: b.source, selection: b.selection, fromSeq: b.fromSeq, toSeq: b.toSeq, entries: b.entries, knowledge: b.knowledge, mark: mark)
        return Delta(batch: marked, journalEntriesRead: journalEntriesRead, complete: complete, leftOut: leftOut, counted: counted)
    }
}

/// Reads the changes one replica has that another has not merged (see the architecture document, "Delta sync").
///
/// The read is one snapshot of the source: its entries after the target's cursor, its last seq and
/// its cursors, so the batch is consistent even while other processes write. Its cost grows with the
/// number of entries after the cursor, not with the size of the store. With a history mark (see
/// ``Store/currentMark``), the batch ends at or before the mark's seq and carries the mark: the target
/// binds its cursor to it. A sender reads a delta first, then takes its mark (`Delta.bound(to:)`),
/// and later parts of the same delta with that mark.
///
/// Entries the target is known to hold already are left out (still counted as read): plain records
/// the source received from the target, where the source's cursor on the target proves the target
/// holds what it sent (see `PeerCursor.echoSafe`). A record the target wrote that reached the
/// source through a third replica is sent: the target may have been restored from a backup taken
/// before it. A policy record may be a combination holding changes the target lacks, and a schema
/// migration may have moved a record the target wrote to another key: those are always sent (merging
/// them again changes nothing).
///
/// Entries of keys declared device-local here (``Suite/setDeviceLocal(_:forKey:)``) are left out of every batch
/// and every count: they never leave the replica (the batch's range still covers them).
///
/// Entries the gate (`RecordGate`) refuses — a record stored before its rules, such as a key holding
/// U+0000 or a version past the bound — are left out and listed (`Delta.leftOut`), so a replica that
/// holds one still syncs everything else instead of having every batch refused.
///
/// ```swift
/// let merged = PeerKnowledge(received: try phone.peerCursors())   // what the phone has merged
/// let read = try DeltaReader.read(from: laptop, for: phone.replicaID, alreadyMerged: merged)
/// let delta = read.bound(to: try laptop.currentMark(givingTo: phone.replicaID, scopes: [.allSuites]))
/// ```
package enum DeltaReader {
    /// Reads `source`'s entries of `selection` that `target` has not merged, according to `alreadyMerged`
    /// (what is known about how far `target` merged `source`). With `target` nil (a bundle for anyone),
    /// no entry is left out for the target's sake; with `leaveOutEchoes` false neither (a resync).
    ///
    /// With `after`, the read starts after that seq instead (the next part of a delta read in parts);
    /// it stops once the batch holds `maxEntries` entries or `maxBytes` bytes of records (at least one
    /// entry), so a large delta travels as several batches, each ending where the next begins. With
    /// `mark`, it stops at the mark's seq (a later part of a delta whose first part was bound to it).
    ///
    /// With `countOnly`, the entries are counted (`Delta.counted`) and not kept: what a sync would send
    /// now, without holding it (`sync-tool stat`'s pending changes).
    ///
    /// With `progress`, the meter is told how far the scan has come, as `base` plus the seqs scanned
    /// after the start (`start(of:for:selection:)`), about every 4,096 entries.
    package static func read(
        from source: Store, for target: ReplicaID?, alreadyMerged: PeerKnowledge,
        selection: SyncSelection = .all, after: UInt64? = nil,
        maxEntries: Int = .max, maxBytes: Int = .max, mark: HistoryMark? = nil, leaveOutEchoes: Bool = true,
        countOnly: Bool = false, progress: (meter: ProgressMeter, base: Int)? = nil
    ) throws -> Delta {
        let sourceID = source.replicaID
        let start: UInt64 = after ?? Self.start(of: sourceID, alreadyMerged: alreadyMerged, selection: selection)
        let gate = RecordGate(store: source)
        return try source.read { r in
            let cursors = try r.peerCursors()
            let deviceLocal = try r.deviceLocalKeys()
            let knowledge = PeerKnowledge(received: cursors)
            let end = min(r.lastSeq, mark?.seq ?? .max)
            var last = end
            var entries: [RemoteEntry] = []
            var leftOut: [ConcordError] = []
            var soundSuite: String?
            var read = 0
            var bytes = 0
            var complete = true
            var counted = 0
            try r.scanJournalHeads(after: start) { head in
                guard head.seq <= end else { return false }
                if entries.count >= maxEntries || bytes >= maxBytes {
                    complete = false
                    return false
                }
                last = head.seq
                read += 1
                if read & 4095 == 0, let progress { progress.meter.update(progress.base + Int(clamping: head.seq - start)) }
                guard selection.includes(head.suite) else { return true }
                guard head.seq > alreadyMerged.merged(of: sourceID, suite: head.suite) else { return true }
                // A device-local key's records never leave this replica, and are not changes a peer lacks.
                if !deviceLocal.isEmpty, deviceLocal.isDeviceLocal(suite: head.suite, key: head.key) { return true }
                // A plain record the target sent is one it holds (or something newer), as the cursor on it proves
                // (see `PeerCursor.echoSafe`). A policy record may combine it with changes the target lacks, and a
                // migration here may have moved or rewritten a record the target wrote: those always go. An entry
                // left out is not decoded past its head.
                if let target, leaveOutEchoes, head.isPlainRecord, case .sync(let peer) = head.source, peer == target,
                    cursors.mayLeaveOutEcho(to: target, suite: head.suite, seq: head.seq)
                {
                    return true
                }
                let entry = try r.entry(of: head)
                let known = entry.suite == soundSuite
                if let refused = gate.refusal(
                    suite: entry.suite, key: entry.key, seq: entry.seq, record: entry.record, decodingValues: false, suiteKnownSound: known)
                {
                    leftOut.append(refused)
                    return true
                }
                soundSuite = entry.suite
                if countOnly {
                    counted += 1
                    return true
                }
                entries.append(RemoteEntry(seq: entry.seq, suite: entry.suite, key: entry.key, record: entry.record))
                bytes +=
                    entry.suite.utf8.count + entry.key.utf8.count + 16
                    + (entry.record.isPlain ? Record.headerSize + (entry.record.valueBytes?.count ?? 0) : entry.record.encoded.count)
                return true
            }
            if complete { last = end }
            if let progress { progress.meter.update(progress.base + Int(clamping: last >= start ? last - start : 0)) }
            let batch = RemoteBatch(
                source: sourceID, selection: selection, fromSeq: min(start, last), toSeq: last,
                entries: entries, knowledge: knowledge, mark: mark)
            return Delta(batch: batch, journalEntriesRead: read, complete: complete, leftOut: leftOut, counted: counted)
        }
    }

    /// The seq a read of `source`'s entries starts after: the least of what `alreadyMerged` says the
    /// target merged of it for the scopes of `selection`.
    package static func start(of source: ReplicaID, alreadyMerged: PeerKnowledge, selection: SyncSelection) -> UInt64 {
        selection.scopes.map { alreadyMerged.merged(of: source, scope: $0) }.min() ?? 0
    }

    /// Reads a whole delta (as `read(from:for:alreadyMerged:selection:leaveOutEchoes:)`) and, with
    /// `onProgress`, reports it as a "read" phase over the seqs it scans (`seqsToRead`).
    package static func readReporting(
        from source: Store, for target: ReplicaID?, alreadyMerged: PeerKnowledge, selection: SyncSelection,
        leaveOutEchoes: Bool, onProgress: ProgressHandler?
    ) throws -> Delta {
        let meter = try onProgress.map { onProgress in
            ProgressMeter(
                onProgress, phase: "read", total: try seqsToRead(in: source, alreadyMerged: alreadyMerged, selection: selection),
                unit: "seqs")
        }
        meter?.update(0)
        let delta = try read(
            from: source, for: target, alreadyMerged: alreadyMerged, selection: selection, leaveOutEchoes: leaveOutEchoes,
            progress: meter.map { ($0, 0) })
        meter?.finish()
        return delta
    }

    /// How many seqs of `store`'s journal a read for a target that merged `alreadyMerged` goes over,
    /// from its start to the store's last seq: what the "read" phase of a progress report counts.
    package static func seqsToRead(in store: Store, alreadyMerged: PeerKnowledge, selection: SyncSelection) throws -> Int {
        let (first, last) = (start(of: store.replicaID, alreadyMerged: alreadyMerged, selection: selection), try store.lastSeq())
        return last > first ? Int(clamping: last - first) : 0
    }
}
