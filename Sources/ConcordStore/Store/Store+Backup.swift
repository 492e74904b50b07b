import Foundation

extension Store {
    /// Writes a consistent copy of this replica into `destination` while other threads and processes
    /// keep reading and writing it: every change committed before the copy began, none after it, and
    /// each record with its journal entry. The copy is verified (`check()`) before this returns.
    ///
    /// `destination` must not exist or be an empty directory; it is made 0700 and its files 0600,
    /// whatever the umask. With `compact`, free pages are left out: a smaller copy, for more CPU.
    ///
    /// The backup has this replica's identity (`replicaID`). Restore it *in place of* the original
    /// (stop its processes, move the original away, move the backup in): never open both as two live
    /// replicas that sync with each other, since two replicas with one identity can give two different
    /// writes the same version.
    ///
    /// ```swift
    /// let report = try store.backup(to: "/var/backups/settings-2026-12-01", compact: true)
    /// print("backed up to seq \(report.lastSeq): \(report.records) records, \(report.fileBytes) bytes")
    /// ```
    ///
    /// - Parameters:
    ///   - destination: A directory that does not exist yet, or an empty one.
    ///   - compact: Whether to leave free pages out of the copy. The default is false.
    ///   - onProgress: Called with the bytes of the copy written so far (`phase` "backup", `unit`
    ///     "bytes"), at most every 50 ms, and last with `done == total` once the copy is on disk. The
    ///     total is the pages in use (less the free ones, compacting) as the copy begins; the last
    ///     update's total is the copy's size.
    /// - Returns: The backup as ``Store/info()`` describes it (its directory, this replica's identity,
    ///   its records, journal entries and last seq, each checked, and the size of its data file).
    /// - Throws: ``ConcordError`` `.io` when `destination` exists and is not an empty directory (nothing is
    ///   written) or cannot be created; ``ConcordError`` `.storage` when the copy fails (a full disk, say);
    ///   ``ConcordError`` `.damaged` when the copy does not verify. On any error nothing is left behind.
    @discardableResult
    public func backup(to destination: String, compact: Bool = false, onProgress: (@Sendable (WorkProgress) -> Void)? = nil) throws -> StoreInfo {
        let created = try BackupDestination.prepare(destination)
        do {
            let meter = ProgressMeter(onProgress, phase: "backup", total: onProgress == nil ? 0 : try expectedCopyBytes(compact: compact), unit: "bytes")
            meter.update(0)
            let written: (@Sendable (Int) -> Void)? = onProgress == nil ? nil : { @Sendable bytes in meter.update(bytes) }
            let bytes = try mapLMDBErrors(path: directory) { try core.env.copy(intoDirectory: destination, compact: compact, progress: written) }
            meter.finish(total: bytes)
            return try verifyBackup(at: destination)
        } catch {
            BackupDestination.discard(destination, created: created)
            throw error
        }
    }

    /// The size a copy will have: the data file's pages in use, less the free ones (and the free list's
    /// own pages) when compacting, as of now.
    private func expectedCopyBytes(compact: Bool) throws -> Int {
        let layout = core.layout
        let env = try core.read { txn in try core.env.statistics(of: [layout.records], in: txn) }
        return (compact ? env.pagesUsed - env.freePages - (env.databases["freelist"]?.pages ?? 0) : env.pagesUsed) * env.pageSize
    }

    /// Opens the backup as a store of its own (creating its lock and notify files) and checks it whole.
    private func verifyBackup(at destination: String) throws -> StoreInfo {
        var options = Store.Options()
        options.createIfMissing = false
        let backup = try Store(path: destination, options: options)
        guard backup.replicaID == replicaID else {
            throw ConcordError.damaged(path: destination, reason: "the backup's replica id \(backup.replicaID) is not the original's \(replicaID)")
        }
        let report = try backup.integrityReport()
        guard report.isSound else {
            throw ConcordError.damaged(path: destination, reason: "the backup does not verify: " + report.problems.prefix(3).joined(separator: "; "))
        }
        return try backup.info()
    }
}
