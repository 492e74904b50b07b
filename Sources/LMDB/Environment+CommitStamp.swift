extension Environment {
    /// Reads `lastCommittedTransactionID` without retaining and releasing the environment,
    /// for callers that check it on every access (a cache's "did anything change?" test).
    /// Going through a reference to `Environment` costs a retain and a release each time, and
    /// those take the slow path on an object that is also referenced weakly (the per-process
    /// registry does): they cost more than the read itself.
    ///
    /// Valid only while the environment is alive: keep a strong reference to it (or to what
    /// owns it) for as long as the reader is used.
    ///
    /// ```swift
    /// let stamp = env.commitStampReader
    /// let before = stamp.read()
    /// // … later, without a transaction:
    /// let changed = stamp.read() != before
    /// ```
    package struct CommitStampReader: @unchecked Sendable {
        private let environment: Unmanaged<Environment>

        init(_ environment: Environment) { self.environment = .passUnretained(environment) }

        /// The same number as `lastCommittedTransactionID`.
        package func read() -> Int {
            environment._withUnsafeGuaranteedRef { $0.lastCommittedTransactionID }
        }
    }

    /// A reader of `lastCommittedTransactionID` that does not retain the environment on each read.
    package var commitStampReader: CommitStampReader { CommitStampReader(self) }
}
