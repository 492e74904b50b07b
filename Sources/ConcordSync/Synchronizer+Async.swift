/// Syncing from async code: the same work, errors and reports as the synchronous calls, run on the
/// first store's own threads, so an `await` never holds a thread of Swift's cooperative pool while
/// the replicas are read, merged and fsynced. A sync whose task is cancelled before it starts
/// throws `CancellationError` and changes nothing; once started, it runs to the end.
///
/// ```swift
/// let report = try await Synchronizer().sync(phone, watch)
/// print(report.aToB.recordsChanged, report.bToA.recordsChanged)
/// ```
extension Synchronizer {
    /// Sends each replica the changes it lacks, without blocking the cooperative pool.
    ///
    /// ```swift
    /// try await Synchronizer().sync(phone, watch)
    /// ```
    ///
    /// - Parameters:
    ///   - a: One replica (its store's threads run the sync).
    ///   - b: The other replica.
    ///   - dryRun: When true, nothing is written to either replica.
    /// - Returns: What each direction changed, as `sync(_:_:dryRun:)` reports it.
    /// - Throws: What `sync(_:_:dryRun:)` throws; `CancellationError` when cancelled before it started.
    @discardableResult
    public func sync(_ a: Store, _ b: Store, dryRun: Bool = false) async throws -> SyncReport {
        try await a.thread.run { [self] in try sync(a, b, dryRun: dryRun) }
    }

    /// Merges into `target` the changes of `source` it lacks, without blocking the cooperative pool.
    ///
    /// ```swift
    /// let report = try await Synchronizer().pull(from: phone, into: watch)
    /// ```
    ///
    /// - Parameters:
    ///   - source: The replica to read changes from (it is not written).
    ///   - target: The replica to merge them into (its store's threads run the pull).
    ///   - dryRun: When true, nothing is written.
    /// - Returns: What the merge changed, as `pull(from:into:dryRun:)` reports it.
    /// - Throws: What `pull(from:into:dryRun:)` throws; `CancellationError` when cancelled before it started.
    @discardableResult
    public func pull(from source: Store, into target: Store, dryRun: Bool = false) async throws -> ApplyReport {
        try await target.thread.run { [self] in try pull(from: source, into: target, dryRun: dryRun) }
    }
}
