/// Hooks for the project's own tests; not part of the API.
extension ReplicaTransaction {
    /// Stores `record` as a merge from `peer` does, without the checks a record from outside now
    /// passes first (`RecordGate`, the rules for new keys): what a release before them could store,
    /// for tests of replicas that hold such records.
    package func storeUncheckedForTesting(_ record: Record, suite: String, key: String, from peer: ReplicaID) throws {
        let existing = try existingRow(suite: suite, key: key)
        try put(
            recordKey(suite: suite, key: key), suite: suite, key: key, record, source: .sync(peer: peer),
            replacingExpiry: try replacedExpiry(existing, suite: suite, key: key))
    }
}
