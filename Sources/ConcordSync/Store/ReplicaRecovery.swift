import ConcordStore
import Foundation
import LMDB

/// What `ReplicaRecovery.rebuild(_:)` did.
///
/// ```swift
/// let report = try ReplicaRecovery.rebuild("/var/lib/app/settings")
/// print(report.recordsRecovered, "records kept; the damaged files are in", report.damagedCopy)
/// ```
public struct RecoveryReport: Sendable, Equatable {
    /// The replica's directory, which now holds the rebuilt replica.
    public let directory: String
    /// Where the damaged replica's directory was moved, untouched.
    public let damagedCopy: String
    /// The damaged replica's id (nil when its metadata could not be read): retired, never used again.
    public let retiredReplicaID: ReplicaID?
    /// The rebuilt replica's new id.
    public let replicaID: ReplicaID
    /// Records the rebuilt replica holds (values and tombstones, with their versions).
    public let recordsRecovered: Int
    /// Of them, records found only in the journal (their row was on a damaged page).
    public let recoveredFromJournal: Int
    /// Keys whose row and journal entry both decode but disagree: neither can be trusted, so neither
    /// was kept (a peer holds them, or they are lost).
    public let disagreeing: Int
    /// Rows and journal entries on sound pages that do not decode (damaged bytes inside a value).
    public let undecodable: Int
    /// The damage the salvage stepped around: one line per damaged page or pointer.
    public let damage: [String]
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
/// forget it with `Store.forgetPeer`, holding tombstones for it meanwhile).
///
/// ```swift
/// let report = try ReplicaRecovery.rebuild("/var/lib/app/settings")
/// try Synchronizer().sync(try Store(path: report.directory), try Store(path: "/mnt/backup-peer"))
/// ```
public enum ReplicaRecovery {
    /// Rebuilds the replica at `directory` in place (the damaged one is moved to `damagedCopy`).
    ///
    /// - Parameters:
    ///   - directory: A replica directory that no process has open.
    ///   - evenIfSound: Rebuild a replica that reads back whole too (it only retires its id). The
    ///     default is false: such a replica is refused.
    /// - Returns: What was recovered and what was not.
    /// - Throws: `SyncError.nothingToRecover` for a replica that reads back whole; `StoreError.storage`
    ///   when a process has the replica open (stop it first), or when the damaged data file cannot be
    ///   read; `StoreError` when the rebuilt replica cannot be written or does not pass `check` (the
    ///   damaged directory is then left where it was).
    public static func rebuild(_ directory: String, evenIfSound: Bool = false) throws -> RecoveryReport {
        let path = URL(fileURLWithPath: directory).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: path + "/data.mdb") else {
            throw StoreError.io(path: path, reason: "no store here (no data.mdb in the directory)")
        }
        try mapLMDBErrors(path: path) { try Environment.checkUnused(directory: path) }
        let salvage = try mapLMDBErrors(path: path) {
            try DataFileSalvage.read(directory: path, databases: ["meta", "records", "journal"])
        }
        let found = SalvagedRecords(salvage)
        if !evenIfSound && salvage.problems.isEmpty && found.readsBackWhole { throw SyncError.nothingToRecover(path: path) }

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
                    entries: found.entries, knowledge: .none)
                try BatchApplier(store: store).apply(batch)
            }
            try store.forgetPeer(source) // the damaged replica is no peer: nothing waits for it
            let report = try store.check()
            guard report.isSound else {
                throw StoreError.damaged(path: rebuilt, reason: "the rebuilt replica does not pass check: \(report.problems.prefix(3).joined(separator: "; "))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: rebuilt)
            throw error
        }
        guard rename(path, damagedCopy) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: rebuilt)
            throw StoreError.io(path: path, reason: "cannot move the damaged replica aside to \(damagedCopy): \(reason)")
        }
        guard rename(rebuilt, path) == 0 else {
            throw StoreError.io(
                path: path,
                reason: "cannot move the rebuilt replica from \(rebuilt) into place: \(String(cString: strerror(errno))) (the damaged one is in \(damagedCopy))"
            )
        }
        return RecoveryReport(
            directory: path, damagedCopy: damagedCopy, retiredReplicaID: found.replica, replicaID: replicaID,
            recordsRecovered: found.entries.count, recoveredFromJournal: found.fromJournal, disagreeing: found.disagreeing,
            undecodable: found.undecodable, damage: salvage.problems)
    }
}

/// The records a salvage found: each key once, from its row or its journal entry.
private struct SalvagedRecords {
    var replica: ReplicaID?
    var entries: [RemoteEntry] = []
    var fromJournal = 0
    var disagreeing = 0
    var undecodable = 0
    /// Rows without their journal entry, and entries without their row (or at another seq).
    var unpaired = 0

    /// Whether everything read decoded and every row had exactly its journal entry.
    var readsBackWhole: Bool { replica != nil && disagreeing == 0 && undecodable == 0 && unpaired == 0 }

    init(_ salvage: DataFileSalvage) {
        for (key, value) in salvage.entries["meta"] ?? [] where key == StoreLayout.replicaKey {
            replica = ReplicaID(bytes: value)
        }
        var rows: [SuiteKey: (seq: UInt64, record: Record)] = [:]
        for (key, value) in salvage.entries["records"] ?? [] {
            guard let (suite, name) = StoreLayout.splitRecordKey(key), (try? Names.validateSuite(suite)) != nil,
                let row = try? StoredRow.decode(value, validateValue: true)
            else {
                undecodable += 1
                continue
            }
            rows[SuiteKey(suite: suite, key: name)] = (row.seq, row.record)
        }
        var journaled: [SuiteKey: (seq: UInt64, record: Record)] = [:]
        for (key, value) in salvage.entries["journal"] ?? [] {
            guard let seq = StoreLayout.decodeSeq(key), let entry = try? JournalEntry.decode(seq: seq, value),
                (try? Names.validateSuite(entry.suite)) != nil
            else {
                undecodable += 1
                continue
            }
            let id = SuiteKey(suite: entry.suite, key: entry.key)
            if let other = journaled[id], other.seq > seq { continue } // one entry per key; keep the newest
            journaled[id] = (seq, entry.record)
        }
        for id in Set(rows.keys).union(journaled.keys).sorted(by: { ($0.suite, $0.key) < ($1.suite, $1.key) }) {
            let row = rows[id]
            let entry = journaled[id]
            if let row, let entry, row.record != entry.record {
                disagreeing += 1
                continue
            }
            if row?.seq != entry?.seq { unpaired += 1 }
            if row == nil { fromJournal += 1 }
            let kept = (row ?? entry)!
            entries.append(RemoteEntry(seq: kept.seq, suite: id.suite, key: id.key, record: kept.record))
        }
        // Seqs are the damaged replica's; a batch needs each entry's own above 0 (a damaged file may repeat one).
        var seen = Set<UInt64>()
        var next = (entries.map(\.seq).max() ?? 0) + 1
        entries = entries.map { entry in
            if entry.seq > 0 && seen.insert(entry.seq).inserted { return entry }
            defer { next += 1 }
            return RemoteEntry(seq: next, suite: entry.suite, key: entry.key, record: entry.record)
        }
        entries.sort { $0.seq < $1.seq }
    }
}
