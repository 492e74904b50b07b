/// Syncing through files: a bundle carries one replica's changes to another that no network reaches
/// (a USB stick, a mail attachment, a pipe). Importing the same bundle twice is harmless, and a bad
/// bundle changes nothing.
extension Store {
    /// Writes this replica's changes that `peer` has not merged yet (by this replica's cursors, as the
    /// peer's last sync or import acknowledged them; every change for nil) to a bundle file at `path`,
    /// written whole and then renamed into place, so `path` never holds half a bundle. The bundle carries
    /// this replica's history marks, so the importer checks its cursor on this replica against them.
    ///
    /// <!-- assume: let phoneID = phone.replicaID -->
    /// ```swift
    /// try laptop.exportBundle(to: "/media/usb/changes.concord", for: phoneID)
    /// let report = try phone.importBundle(at: "/media/usb/changes.concord")
    /// print(report.recordsChanged, "changed,", report.conflictCount, "conflicts")
    /// ```
    ///
    /// - Parameters:
    ///   - path: The bundle file to write; an existing file is replaced.
    ///   - peer: The replica the bundle is for, or nil for every change this replica holds.
    ///   - selection: The suites to export. The default is every suite.
    ///   - onProgress: Called as the export goes: `phase` "read" (the seqs of the journal scanned),
    ///     then "export", `done` of `total` records (the changes the bundle holds), each last with
    ///     `done == total` (the export's once the file is in place).
    /// - Returns: How many changes (changed keys) the bundle holds.
    /// - Throws: ``ConcordError`` `.sameReplica` when `peer` is this replica, ``ConcordError`` when the
    ///   replica cannot be read or the file cannot be written.
    @discardableResult
    public func exportBundle(
        to path: String, for peer: ReplicaID? = nil, selection: SyncSelection = .all, onProgress: (@Sendable (WorkProgress) -> Void)? = nil
    ) throws -> Int {
        try BundleExchange.export(from: self, since: peer.map { .acknowledgedBy($0) } ?? .beginning, selection: selection, to: path, onProgress: onProgress)
            .entries
    }

    /// Validates the whole bundle at `path` (a file, or a pipe read to its end), then merges it into
    /// this replica in one write transaction — or, with `dryRun`, reports what it would change and
    /// writes nothing. When either replica went back in time (see the architecture document, "Trust
    /// and time"), every entry is merged whatever the cursor says, and ``ApplyReport/resyncReason``
    /// says why.
    ///
    /// ```swift
    /// let report = try watch.importBundle(at: "/tmp/phone.bundle")
    /// print(report.recordsChanged, "changed,", report.conflicts.count, "conflicts")
    /// ```
    ///
    /// - Parameters:
    ///   - path: The bundle file.
    ///   - dryRun: When true, nothing is written; the report says what would change.
    ///   - onProgress: Called as the bundle is merged: `phase` "import", `done` of `total` records
    ///     (the entries the bundle holds), last with `done == total` once the merge is committed.
    /// - Returns: What the merge changed: records, conflicts, clock skew, and whether it was a resync.
    /// - Throws: ``ConcordError`` when the bundle is unreadable, truncated, damaged, oversized (over
    ///   1 GiB, 10 million entries, or a value over 4 MiB), of a newer format, or from this replica
    ///   itself — nothing is imported then; ``ConcordError`` when the replica cannot be written.
    @discardableResult
    public func importBundle(at path: String, dryRun: Bool = false, onProgress: (@Sendable (WorkProgress) -> Void)? = nil) throws -> ApplyReport {
        try BundleExchange.importBundle(at: path, into: self, dryRun: dryRun, onProgress: onProgress)
    }
}
