import LMDB

/// What ``Store/check()`` found, with what it checked (`sync-tool check` shows the counts).
package struct IntegrityReport: Sendable, Equatable {
    /// How many records were decoded and checked against their journal entries.
    package let recordsChecked: Int
    /// How many live journal entries (those a record points at) were decoded and checked against
    /// their records. Superseded entries awaiting compaction are decoded and checked too, and not counted.
    package let journalEntriesChecked: Int
    /// One line per problem; empty when the store is sound.
    package let problems: [String]
    /// Whether the check found no problem.
    package var isSound: Bool { problems.isEmpty }
}

extension Store {
    /// Verifies the replica: the data file's page structure (read directly, so damage is reported rather
    /// than crashing LMDB), metadata, every record and journal entry decodes, every record has
    /// exactly its journal entry, every other entry is superseded (older than its key's record, or of
    /// a key whose record was collected), seqs and the clock are consistent, and the index of expiries
    /// holds exactly the records that expire.
    ///
    /// ```swift
    /// let problems = try store.check()
    /// if !problems.isEmpty { problems.forEach { print($0) } }
    /// ```
    ///
    /// - Returns: One line per problem found, at most 100; empty when the replica is sound.
    /// - Throws: ``ConcordError`` `.damaged` when the data file's pages are too damaged to walk, or a storage error.
    public func check() throws -> [String] { try integrityReport().problems }

    /// What ``check()`` finds, with how many records and journal entries it checked.
    package func integrityReport() throws -> IntegrityReport {
        // LMDB trusts its pages; walk them first so damage is reported rather than crashing the walk below.
        let pages = try mapLMDBErrors(path: directory) { try core.env.verifyPages() }
        guard pages.isSound else {
            return IntegrityReport(recordsChecked: 0, journalEntriesChecked: 0, problems: pages.problems.map { "data file: \($0)" })
        }
        return try core.read { txn in
            var problems: [String] = []
            func note(_ p: String) { if problems.count < 100 { problems.append(p) } }
            let state = try ReplicaState.load(txn, core.layout)
            var recordSeqs: [UInt64: (String, String, Record)] = [:]
            var seqOfKey: [[UInt8]: UInt64] = [:]
            var expiring = Set<[UInt8]>()
            var records = 0
            try txn.scan(core.layout.records) { key, value in
                records += 1
                guard let (suite, k) = StoreLayout.splitRecordKey(key) else {
                    note("a record key that is not suite\\0key")
                    return true
                }
                if (try? Names.validateSuite(suite)) == nil { note("record \(suite)/\(k): invalid suite name") }
                do {
                    let row = try StoredRow.decode(value, validateValue: true)
                    if row.seq > state.seq { note("record \(suite)/\(k): seq \(row.seq) beyond the last seq \(state.seq)") }
                    if recordSeqs[row.seq] != nil { note("record \(suite)/\(k): seq \(row.seq) used twice") }
                    recordSeqs[row.seq] = (suite, k, row.record)
                    seqOfKey[key] = row.seq
                    if let expiry = row.record.expiresAtMilliseconds { expiring.insert(StoreLayout.expiryKey(expiry, recordKey: key)) }
                } catch {
                    note("record \(suite)/\(k) does not decode: \(error)")
                }
                return true
            }
            var entries = 0
            try txn.scan(core.layout.journal) { key, value in
                guard let seq = StoreLayout.decodeSeq(key) else {
                    note("a journal key that is not 8 bytes")
                    return true
                }
                do {
                    let entry = try JournalEntry.decode(seq: seq, value)
                    if seq > state.seq { note("journal entry \(seq) beyond the last seq \(state.seq)") }
                    if let (suite, k, record) = recordSeqs.removeValue(forKey: seq) {
                        entries += 1
                        if suite != entry.suite || k != entry.key || record != entry.record {
                            note("journal entry \(seq) does not match its record \(suite)/\(k)")
                        }
                    } else if let current = seqOfKey[StoreLayout.recordKey(suite: entry.suite, key: entry.key)], current < seq {
                        note("journal entry \(seq) (\(entry.suite)/\(entry.key)) is newer than its record's entry \(current)")
                    }
                } catch {
                    note("journal entry \(seq) does not decode: \(error)")
                }
                return true
            }
            for (seq, (suite, k, _)) in recordSeqs.sorted(by: { $0.key < $1.key }) {
                note("record \(suite)/\(k) points at journal entry \(seq), which is missing")
            }
            func named(_ key: [UInt8]) -> String {
                guard let (_, recordKey) = StoreLayout.splitExpiryKey(key), let (suite, k) = StoreLayout.splitRecordKey(recordKey) else {
                    return "a key that is not suite\\0key"
                }
                return "\(suite)/\(k)"
            }
            try txn.scan(core.layout.expiries) { key, _ in
                if expiring.remove(key) == nil { note("the expiry index names \(named(key)), whose record does not expire then") }
                return true
            }
            for key in expiring.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                note("record \(named(key)) expires but the expiry index does not hold it")
            }
            return IntegrityReport(recordsChecked: records, journalEntriesChecked: entries, problems: problems)
        }
    }
}
