import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where an export starts: what the receiving peer is known to have merged already.
package enum ExportStart: Sendable {
    /// Everything in the journal (for a peer never synced, or any peer).
    case beginning
    /// After what `peer` has merged of this replica, as this replica's cursors acknowledge it.
    case acknowledgedBy(ReplicaID)
    /// After what the peer replica at hand has merged of this replica (read from its own cursors).
    case receivedBy(Store)
}

/// What an export wrote (``Store/exportBundle(to:for:selection:onProgress:)`` returns its entry count).
package struct BundleExportReport: Sendable, Equatable {
    /// How many journal entries (changed keys) the bundle holds.
    package let entries: Int
    /// The bundle's size in bytes.
    package let bytes: Int
    /// The source's journal seq the bundle starts after.
    package let fromSeq: UInt64
    /// The source's journal seq the bundle reaches: an import moves the target's cursor to it.
    package let toSeq: UInt64
    /// Journal entries read to build it.
    package let journalEntriesRead: Int
    /// Records left out because the gate refuses them (stored before its rules; see `RecordGate`).
    package let leftOut: [ConcordError]
    /// Set when the export holds everything because one of the two replicas went back in time (with
    /// `ExportStart.receivedBy`, where both are at hand to check each other's claims).
    package var historyResync: HistoryResync?
}

/// Syncing through files: export a replica's changes to a bundle, import a bundle into a replica
/// (``Store/exportBundle(to:for:selection:onProgress:)``, ``Store/importBundle(at:dryRun:onProgress:)``).
///
/// Import reads and validates the whole bundle first (`SyncBundle.decode`), then merges it in one
/// write transaction (`BatchApplier`), so a bad bundle changes nothing and a good one is merged
/// entirely. Importing the same bundle twice is harmless: merged entries are skipped by the cursor
/// and merging is idempotent.
///
package enum BundleExchange {
    /// Builds the bundle of `store`'s changes after `start`, for the suites of `selection`: bound to
    /// the store's current mark, and carrying every mark the store holds, so the importer can check its
    /// cursor on the store (see the architecture document, "Trust and time").
    package static func makeBundle(from store: Store, since start: ExportStart, selection: SyncSelection = .all) throws -> (
        bundle: SyncBundle, journalEntriesRead: Int, historyResync: HistoryResync?
    ) {
        let (bundle, delta, historyResync) = try bundleAndDelta(from: store, since: start, selection: selection)
        return (bundle, delta.journalEntriesRead, historyResync)
    }

    /// The bundle of `store`'s changes after `start`, the delta it was read as (what it cost, what was
    /// left out), and what the two replicas' checks of each other found (with `ExportStart.receivedBy`).
    static func bundleAndDelta(from store: Store, since start: ExportStart, selection: SyncSelection, onProgress: ProgressHandler? = nil) throws -> (
        bundle: SyncBundle, delta: Delta, historyResync: HistoryResync?
    ) {
        var target: ReplicaID?
        var merged = PeerKnowledge.none
        var resync = false
        var causes: [HistoryResync.Cause] = []
        switch start {
        case .beginning:
            break
        case .acknowledgedBy(let peer):
            guard peer != store.replicaID else { throw ConcordError.sameReplica(peer, store.directory) }
            (target, merged) = (peer, PeerKnowledge(acknowledgedBy: peer, in: try store.peerCursors(), owner: store.replicaID))
        case .receivedBy(let peer):
            guard peer.replicaID != store.replicaID else { throw ConcordError.sameReplica(peer.replicaID, peer.directory) }
            // Both replicas are at hand: each checks the other's claims about it, as a sync does.
            let mine = try store.beginContact(with: peer.replicaID, claims: PeerKnowledge(received: try peer.peerCursors()), selection: selection, dryRun: true)
            let theirs = try peer.beginContact(
                with: store.replicaID, claims: PeerKnowledge(received: try store.peerCursors()), selection: selection, dryRun: true)
            resync = mine.forcesResync || theirs.forcesResync
            causes = mine.causes(me: store.replicaID, peer: peer.replicaID) + theirs.causes(me: peer.replicaID, peer: store.replicaID)
            (target, merged) = (peer.replicaID, resync ? .none : PeerKnowledge(received: try peer.peerCursors()))
        }
        let read = try DeltaReader.readReporting(
            from: store, for: target, alreadyMerged: merged, selection: selection, leaveOutEchoes: !resync, onProgress: onProgress)
        let delta = read.bound(to: try store.currentMark(givingTo: target, scopes: selection.scopes))
        let (live, pruned, disproven) = try store.read { r in
            (try r.liveMarks(), try r.marksPrunedThrough(), Array(Set(try r.peerCursors().cursors.compactMap(\.disproven))))
        }
        let bundle = SyncBundle(
            batch: delta.batch, createdMilliseconds: store.options.clock.read(), liveMarks: live, marksPrunedThrough: pruned,
            disprovenMarks: disproven.sorted { $0.encoded.lexicographicallyPrecedes($1.encoded) })
        return (bundle, delta, HistoryResync(causes))
    }

    /// Exports `store`'s changes after `start` to a bundle file at `path` (written whole, then renamed into place).
    ///
    /// - Parameters:
    ///   - store: The replica whose changes to export.
    ///   - start: Where the bundle begins: what the receiving peer has merged already.
    ///   - selection: The suites to export. The default is every suite.
    ///   - path: The bundle file to write; an existing file is replaced.
    ///   - onProgress: Called as the export goes: `phase` "read" (the seqs of the journal scanned,
    ///     from the start to the last seq), then "export", `done` of `total` records (the changes the
    ///     bundle holds), each last with `done == total` (the export's once the file is in place).
    /// - Returns: How many entries and bytes were written, and the seq range they cover.
    /// - Throws: ``ConcordError`` `.sameReplica` when `start` names `store` itself, `ConcordError` when the
    ///   replica cannot be read, `ConcordError` when the file cannot be written (`path` never holds
    ///   half a bundle: the file is renamed into place once complete).
    @discardableResult
    package static func export(
        from store: Store, since start: ExportStart, selection: SyncSelection = .all, to path: String,
        onProgress: (@Sendable (WorkProgress) -> Void)? = nil
    ) throws -> BundleExportReport {
        let (bundle, delta, history) = try bundleAndDelta(from: store, since: start, selection: selection, onProgress: onProgress)
        let meter = ProgressMeter(onProgress, phase: "export", total: bundle.batch.entries.count, unit: "records")
        meter.update(0)
        let bytes = bundle.encoded(progress: meter)
        try write(bytes, to: path)
        meter.finish()
        var report = BundleExportReport(
            entries: bundle.batch.entries.count, bytes: bytes.count,
            fromSeq: bundle.batch.fromSeq, toSeq: bundle.batch.toSeq, journalEntriesRead: delta.journalEntriesRead, leftOut: delta.leftOut)
        report.historyResync = history
        return report
    }

    /// Writes `bytes` to a temporary file beside `path`, flushes it to disk and renames it over `path`,
    /// so a reader never sees half a bundle.
    package static func write(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".partial-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            let reason = StoreDirectory.noSpaceLeft(at: Self.directory(of: path)) ?? "check that the directory exists and is writable"
            throw ConcordError.bundle(.unwritable, "cannot write \(temporary): \(reason)", path: path)
        }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            try handle.synchronize()
            try handle.close()
            if rename(temporary, path) != 0 {
                throw ConcordError.bundle(.unwritable, "cannot move the bundle into place: \(String(cString: strerror(errno)))", path: path)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Reads and validates the bundle at `path`: a file, or a pipe or device read to its end (`<(…)`,
    /// `/dev/stdin`). More than `limits.maxBytes` is refused, a regular file's from its size before
    /// anything is read.
    package static func read(at path: String, limits: BundleLimits = BundleLimits()) throws -> SyncBundle {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "no bundle file here (it does not exist)" : "cannot open the file: \(String(cString: strerror(errno)))"
            throw ConcordError.bundle(.unreadable, reason, path: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else {
            throw ConcordError.bundle(.unreadable, "this is a directory, not a bundle file", path: path)
        }
        if info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) > limits.maxBytes {
            throw ConcordError.bundle(.oversized, "the file is \(info.st_size) bytes, over the limit of \(limits.maxBytes) bytes", path: path)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ConcordError.bundle(.unreadable, "cannot read the file: \(String(cString: strerror(errno)))", path: path) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
            if bytes.count > limits.maxBytes {
                throw ConcordError.bundle(.oversized, "it holds more than the limit of \(limits.maxBytes) bytes", path: path)
            }
        }
        guard !bytes.isEmpty else { throw ConcordError.bundle(.truncated, "the file is empty: not a bundle", path: path) }
        do { return try SyncBundle.decode(bytes, limits: limits) } catch { throw error.inBundle(at: path) }
    }

    /// Validates the whole bundle at `path`, then merges it into `store` in one write transaction
    /// (or, with `dryRun`, reports what it would change and writes nothing).
    ///
    /// Before merging, the store checks the bundle's claims about it and its own cursors on the bundle's
    /// source against the marks the bundle lists (see the architecture document, "Trust and time"). When
    /// either replica went back in time, every entry of the bundle is merged whatever the cursor says,
    /// the cursors on a restored source are reset, and the report's `historyResync` says so.
    ///
    /// - Parameters:
    ///   - path: The bundle file.
    ///   - store: The replica to merge it into.
    ///   - dryRun: When true, nothing is written; the report says what would change.
    ///   - onProgress: Called as the bundle is merged: `phase` "import", `done` of `total` records
    ///     (the entries the bundle holds), last with `done == total` once the merge is committed.
    /// - Returns: What the merge changed: records, conflicts, clock skew, and whether it was a resync.
    /// - Throws: `ConcordError` when the bundle is unreadable, truncated, damaged, oversized (over
    ///   1 GiB, 10 million entries, or a value over 4 MiB), of a newer format, or from `store`
    ///   itself — nothing is imported then; `ConcordError` when the replica cannot be written.
    @discardableResult
    package static func importBundle(
        at path: String, into store: Store, dryRun: Bool = false, onProgress: (@Sendable (WorkProgress) -> Void)? = nil
    ) throws -> ApplyReport {
        try importBundle(at: path, into: store, dryRun: dryRun, limits: BundleLimits(), onProgress: onProgress)
    }

    /// `importBundle(at:into:dryRun:onProgress:)` with other limits on the largest bundle accepted.
    package static func importBundle(
        at path: String, into store: Store, dryRun: Bool = false, limits: BundleLimits, onProgress: ProgressHandler? = nil
    ) throws -> ApplyReport {
        try importBundle(try read(at: path, limits: limits), from: path, into: store, dryRun: dryRun, onProgress: onProgress)
    }

    /// Merges a bundle already read and validated (from the file at `path`: a pipe is read only once).
    package static func importBundle(
        _ bundle: SyncBundle, from path: String, into store: Store, dryRun: Bool = false, onProgress: ProgressHandler? = nil
    ) throws -> ApplyReport {
        let source = bundle.batch.source
        guard source != store.replicaID else {
            throw ConcordError.bundle(
                .wrongReplica, "this bundle was exported by this very replica (\(store.replicaID)); import it into another one", path: path)
        }
        let mine = try store.beginContact(with: source, claims: bundle.batch.knowledge, selection: bundle.batch.selection, dryRun: dryRun)
        var theirs = ContactCheck()
        let (claims, older) = bundle.check(try store.peerCursors().cursors.filter { $0.peer == source })
        theirs.claims = claims
        let resync = mine.forcesResync || theirs.forcesResync
        if theirs.forcesResync && !dryRun { try store.resetCursors(on: source) }
        // When this replica went back in time, the bundle may have left out its own writes as echoes (its
        // source believes it holds them), and a bundle older than what this replica merged of its source
        // (or from a source restored and not yet past that point) proves nothing: in both, every entry is
        // merged and the cursor stays. A restored source's cursors were reset: the batch replaces them.
        let mode: BatchApplier.MergeMode = mine.forcesResync || (older && !resync) ? .ignoringCursor : resync ? .resync : .delta
        var applier = BatchApplier(store: store)
        applier.meter = ProgressMeter(onProgress, phase: "import", total: bundle.batch.entries.count, unit: "records")
        applier.meter?.update(0)
        var report = dryRun ? try applier.plan(bundle.batch, mode: mode) : try applier.apply(bundle.batch, mode: mode)
        applier.meter?.finish()
        report.historyResync = HistoryResync(mine.causes(me: store.replicaID, peer: source) + theirs.causes(me: source, peer: store.replicaID))
        report.olderThanCursor = older && !resync
        return report
    }
}

extension SyncBundle {
    /// Checks `cursors` (a replica's cursors on this bundle's source) against the marks the source held
    /// when it made the bundle, and the claims it found false. `older` is true when a cursor is bound to
    /// a mark newer than the bundle's (the bundle is older than what the replica merged, or its source
    /// went back and has not yet written past that point). A bundle of a format before marks proves and
    /// disproves nothing.
    package func check(_ cursors: [PeerCursor]) -> (claims: ClaimsCheck, older: Bool) {
        guard let newest = batch.mark else { return (ClaimsCheck(), false) }
        let live = Set(liveMarks)
        let (check, older) = ClaimsCheck.of(
            cursors, holds: { live.contains($0) }, lastSeq: newest.seq, prunedThrough: marksPrunedThrough,
            disproven: Set(disprovenMarks), mayBeOlder: true)
        return (check, older)
    }
}
