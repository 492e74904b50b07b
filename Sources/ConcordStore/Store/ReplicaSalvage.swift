import LMDB

/// What can still be read of a damaged replica: its data file read directly (never through LMDB, which
/// stops the process at a damaged page; see the architecture document, "Operations"), every record
/// row and journal entry on a page that checks out and decodes, each key once — from its row, or from
/// its journal entry when the row was lost — and a key whose two copies disagree left out.
package struct ReplicaSalvage {
    /// One record found: its seq (renumbered where the damaged file repeats one), key and record.
    package struct Entry {
        package let seq: UInt64
        package let suite: String
        package let key: String
        package let record: Record
    }

    /// The damaged replica's id (nil when its metadata could not be read).
    package var replica: ReplicaID?
    /// The records found, by seq.
    package var entries: [Entry] = []
    /// Of them, records found only in the journal.
    package var fromJournal = 0
    /// Keys whose row and journal entry both decode but disagree (left out).
    package var disagreeing = 0
    /// Rows and journal entries on sound pages that do not decode.
    package var undecodable = 0
    /// Rows without their journal entry, and entries without their row (or at another seq).
    var unpaired = 0
    /// The damage the salvage stepped around: one line per damaged page or pointer.
    package var damage: [String] = []

    /// Whether everything read decoded and every row had exactly its journal entry.
    package var readsBackWhole: Bool { replica != nil && disagreeing == 0 && undecodable == 0 && unpaired == 0 }

    /// Reads what can be read of the replica at `path`, which no process may have open.
    package static func read(directory path: String) throws -> ReplicaSalvage {
        try mapLMDBErrors(path: path) { try Environment.checkUnused(directory: path) }
        let salvage = try mapLMDBErrors(path: path) {
            try DataFileSalvage.read(directory: path, databases: ["meta", "records", "journal"])
        }
        return ReplicaSalvage(salvage)
    }

    private init(_ salvage: DataFileSalvage) {
        damage = salvage.problems
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
            if let other = journaled[id], other.seq > seq { continue } // the newest of the key's entries
            journaled[id] = (seq, entry.record)
        }
        for id in Set(rows.keys).union(journaled.keys).sorted(by: { ($0.suite, $0.key) < ($1.suite, $1.key) }) {
            let row = rows[id]
            let entry = journaled[id]
            // The newest entry is the row's own, or older when the row's was lost (the rest are superseded).
            if let row, let entry, row.seq < entry.seq || (row.seq == entry.seq && row.record != entry.record) {
                disagreeing += 1
                continue
            }
            if row?.seq != entry?.seq { unpaired += 1 }
            if row == nil { fromJournal += 1 }
            let kept = (row ?? entry)!
            entries.append(Entry(seq: kept.seq, suite: id.suite, key: id.key, record: kept.record))
        }
        // Seqs are the damaged replica's; a batch needs each entry's own above 0 (a damaged file may repeat one).
        var seen = Set<UInt64>()
        var next = (entries.map(\.seq).max() ?? 0) + 1
        entries = entries.map { entry in
            if entry.seq > 0 && seen.insert(entry.seq).inserted { return entry }
            defer { next += 1 }
            return Entry(seq: next, suite: entry.suite, key: entry.key, record: entry.record)
        }
        entries.sort { $0.seq < $1.seq }
    }
}
