import Foundation

/// What `ReplicaRecovery.rebuild(_:)` did.
///
/// ```swift
/// let report = try ReplicaRecovery.rebuild("/var/lib/app/settings")
/// print(report.recordsRecovered, "records kept; the damaged files are in", report.damagedCopy)
/// ```
package struct RecoveryReport: Sendable, Equatable {
    /// The replica's directory, which now holds the rebuilt replica.
    package let directory: String
    /// Where the damaged replica's directory was moved, untouched.
    package let damagedCopy: String
    /// The damaged replica's id (nil when its metadata could not be read): retired, never used again.
    package let retiredReplicaID: ReplicaID?
    /// The rebuilt replica's new id.
    package let replicaID: ReplicaID
    /// Records the rebuilt replica holds (values and tombstones, with their versions).
    package let recordsRecovered: Int
    /// Of them, records found only in the journal (their row was on a damaged page).
    package let recoveredFromJournal: Int
    /// Keys whose row and journal entry both decode but disagree: neither can be trusted, so neither
    /// was kept (a peer holds them, or they are lost).
    package let disagreeing: Int
    /// Rows and journal entries on sound pages that do not decode (damaged bytes inside a value).
    package let undecodable: Int
    /// The damage the salvage stepped around: one line per damaged page or pointer.
    package let damage: [String]
}

/// Rebuilds a damaged replica from what can still be read, so it can get the rest from its peers by
/// a normal sync (see the architecture document, "Operations").
///
/// The damaged data file is read directly (never through LMDB, which stops the process at a damaged
/// page): every record row and journal entry on a page that checks out and decodes is kept, a row
/// lost with its page is taken from its journal entry (each holds the same record), and a key whose two
/// copies disagree is left out. The records keep their versions and go into a new replica through the
/// merge path, as if a peer had sent them. The new replica has a **new id** and a new journal: no
/// peer has a cursor on it, so the first sync with each peer is a full one both ways — the peer sends
/// everything (what the damage lost comes back) and receives everything (what only this replica
/// held reaches it), and merging is idempotent, so nothing either side holds is lost. The damaged
/// directory is moved aside, untouched; its id is retired (peers keep their cursors on it until they
/// forget it with ``Store/forgetPeer``, holding tombstones for it meanwhile).
///
/// ```swift
/// let report = try ReplicaRecovery.rebuild("/var/lib/app/settings")
/// try Synchronizer().sync(try Store(path: report.directory), try Store(path: "/mnt/backup-peer"))
/// ```
package enum ReplicaRecovery {
    /// Rebuilds the replica at `directory` in place (the damaged one is moved to `damagedCopy`).
    ///
    /// - Parameters:
    ///   - directory: A replica directory that no process has open.
    ///   - evenIfSound: Rebuild a replica that reads back whole too (it only retires its id). The
    ///     default is false: such a replica is refused.
    /// - Returns: What was recovered and what was not.
    /// - Throws: ``ConcordError`` `.nothingToRecover` for a replica that reads back whole; ``ConcordError`` `.storage`
    ///   when a process has the replica open (stop it first), or when the damaged data file cannot be
    ///   read; `ConcordError` when the rebuilt replica cannot be written or does not pass `check` (the
    ///   damaged directory is then left where it was).
    package static func rebuild(_ directory: String, evenIfSound: Bool = false) throws -> RecoveryReport {
        let path = URL(fileURLWithPath: directory).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: path + "/data.mdb") else {
            throw ConcordError.io(path: path, reason: "no store here (no data.mdb in the directory)")
        }
        let found = try ReplicaSalvage.read(directory: path)
        if !evenIfSound && found.damage.isEmpty && found.readsBackWhole { throw ConcordError.nothingToRecover(path: path) }

        let stamp = UInt64(Date().timeIntervalSince1970 * 1000)
        let rebuilt = path + ".rebuilding-\(getpid())-\(stamp)"
        let damagedCopy = path + ".damaged-\(stamp)"
        let replicaID: ReplicaID
        do {
            let store = try Store(path: rebuilt)
            replicaID = store.replicaID
            let source = found.replica ?? ReplicaID.random()
            if !found.entries.isEmpty {
                let batch = RemoteBatch(
                    source: source, selection: .all, fromSeq: 0, toSeq: found.entries.map(\.seq).max() ?? 0,
                    entries: found.entries.map { RemoteEntry(seq: $0.seq, suite: $0.suite, key: $0.key, record: $0.record) },
                    knowledge: .none)
                try BatchApplier(store: store).apply(batch)
            }
            try store.forgetPeer(source) // the damaged replica is no peer: nothing waits for it
            let report = try store.integrityReport()
            guard report.isSound else {
                throw ConcordError.damaged(
                    path: rebuilt, reason: "the rebuilt replica does not pass check: \(report.problems.prefix(3).joined(separator: "; "))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: rebuilt)
            throw error
        }
        guard rename(path, damagedCopy) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: rebuilt)
            throw ConcordError.io(path: path, reason: "cannot move the damaged replica aside to \(damagedCopy): \(reason)")
        }
        guard rename(rebuilt, path) == 0 else {
            throw ConcordError.io(
                path: path,
                reason: "cannot move the rebuilt replica from \(rebuilt) into place: \(String(cString: strerror(errno))) (the damaged one is in \(damagedCopy))"
            )
        }
        return RecoveryReport(
            directory: path, damagedCopy: damagedCopy, retiredReplicaID: found.replica, replicaID: replicaID,
            recordsRecovered: found.entries.count, recoveredFromJournal: found.fromJournal, disagreeing: found.disagreeing,
            undecodable: found.undecodable, damage: found.damage)
    }
}
