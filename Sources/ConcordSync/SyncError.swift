import ConcordStore

/// Errors of the sync layer that are not about a bundle's bytes (those are `BundleError`).
///
/// ```swift
/// do { try Synchronizer().sync(phone, watch) }
/// catch let error as SyncError { print(error) }
/// ```
public enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Both sides are the same replica (the same directory, or a copy of a store directory).
    case sameReplica(ReplicaID, String)
    /// A batch carries two entries for one key (a journal holds one per key, so a batch must too).
    case duplicateKey(suite: String, key: String)
    /// A batch holds a record the gate refuses (a bad name, a value over the limit or that does not
    /// decode, a version no clock produces): nothing of the batch was merged.
    case refusedRecord(RefusedRecord)
    /// `ReplicaRecovery.rebuild` was asked to rebuild a replica that reads back whole.
    case nothingToRecover(path: String)
    /// `Suite.restore(_:conflict:)` was given a number outside the key's beaten writes (1 is the
    /// newest; `count` are listed): nothing was written.
    case noSuchConflict(suite: String, key: String, number: Int, count: Int)
    /// `Store.waitUntilAcknowledged` (or `LiveSync`'s) timed out: `peer` (with the name it gave itself,
    /// if known; nil for a live sync's peer it never reached) had not acknowledged `pending` changes of
    /// this replica (device-local ones not counted).
    case notAcknowledged(peer: ReplicaID?, name: String?, pending: Int, waited: Duration)

    public var description: String {
        switch self {
        case .sameReplica(let id, let path):
            return
                "cannot sync replica \(id) (\(path)) with itself: both sides hold the same replica id (the same directory, or a copied store directory; give a copy a fresh identity by creating a new store and syncing into it)"
        case .duplicateKey(let suite, let key):
            return "the batch holds two entries for key \"\(key)\" of suite \"\(suite)\"; a batch carries one change per key, so nothing was merged"
        case .refusedRecord(let refused):
            return "the batch holds a record this replica refuses, so nothing of it was merged: \(refused)"
        case .noSuchConflict(let suite, let key, let number, let count):
            let listed = count == 0 ? "it has no beaten writes in the conflict log" : "its beaten writes are numbered 1 to \(count), newest first"
            return "there is no beaten write \(number) of key \"\(key)\" in suite \"\(suite)\": \(listed) (nothing was written)"
        case .notAcknowledged(let peer, let name, let pending, let waited):
            let who = peer.map { id in name.map { "\(id) (\($0))" } ?? "\(id)" } ?? "of the live sync (never reached)"
            return
                "peer \(who) did not acknowledge this replica's changes within \(waited): \(pending) change\(pending == 1 ? " is" : "s are") still unacknowledged (it is not syncing, or not live; the changes stay and go out at its next sync)"
        case .nothingToRecover(let path):
            return
                "\(path) reads back whole (every page, record and journal entry, and they agree): there is nothing to recover, and nothing was changed (rebuilding it anyway would only retire its replica id)"
        }
    }
}
