import LMDB

/// Removes superseded journal entries in bulk, outside the write transactions that superseded them.
///
/// The write core only appends to the journal (`ReplicaTransaction`): the entry a change supersedes
/// stays, and every reader passes over it, since its row no longer points at it
/// (`ReplicaRows.scanJournalHeads`). A superseded entry holds the record it stored, value and all, so
/// the allowance is counted in entries and in pages: a commit after which the journal holds more
/// superseded entries than there are records (and more than `minimumAllowance`), or more pages than
/// the records' tree beyond as many again (and beyond `minimumPageAllowance`: live entries take about
/// the pages their rows take), is followed, in the call that committed it, by a pass: from the oldest entry to the one before the
/// last, in write transactions that each go over at most `entriesPerStep` entries (other writers take
/// the write lock between them), it deletes every superseded entry, in key order. The last entry
/// stays: it carries the clock and last seq (`ReplicaState`).
///
/// So after a commit and its pass the journal holds at most the live entries (one per record), what
/// commits of other writers appended while the pass ran, and the last entry; and it never holds more
/// than twice the records plus `minimumAllowance` entries, nor much more than twice the records'
/// pages plus `minimumPageAllowance`, plus what the commits in flight append. A
/// pass goes over fewer than three entries for each one it removes, and each superseded entry is
/// removed once, so its cost is spread over the writes that superseded them. A pass cut short (a
/// crash, an error) leaves a journal that reads exactly as before; the next commit over the
/// allowance starts another.
enum JournalCompaction {
    /// The fewest superseded entries that make a journal due for a pass.
    static let minimumAllowance = 4096
    /// The fewest pages beyond the live entries' (about the records' tree) that make it due (1 MiB of 4 KiB pages).
    static let minimumPageAllowance = 256
    /// How many entries one step (one write transaction) of a pass goes over.
    static let entriesPerStep = 2048

    /// Whether the journal `txn` sees holds more superseded entries, or pages, than its allowance.
    static func isDue(_ txn: Transaction, _ layout: StoreLayout) throws -> Bool {
        let (journal, records) = (try txn.statistics(layout.journal), try txn.statistics(layout.records))
        return journal.entries - records.entries > max(records.entries, minimumAllowance)
            || journal.pages - records.pages > max(records.pages, minimumPageAllowance)
    }

    /// One step of a pass: deletes the superseded entries among the `entriesPerStep` after `seq`;
    /// the journal's last entry too only when not `keepingLast` (the transaction then saves the clock
    /// and seq in `meta/state`). Returns where the next step starts (after that seq), or nil when this
    /// step reached the end.
    static func step(_ rows: some ReplicaRows, after seq: UInt64, keepingLast: Bool = true) throws -> UInt64? {
        try rows.txn.withCursor(rows.layout.journal) { cursor -> UInt64? in
            guard let lastKey = try cursor.last(valuePrefix: 0)?.key, let last = StoreLayout.decodeSeq(lastKey), seq < last else { return nil }
            var entry = try cursor.seek(atLeast: StoreLayout.seqKey(seq + 1))
            var scanned = 0
            while let (key, value) = entry {
                let head = try rows.journalHead(key, value)
                guard head.seq < last || !keepingLast else { return nil }
                guard scanned < entriesPerStep else { return head.seq - 1 }
                scanned += 1
                if try !rows.isLive(head) { try cursor.deleteCurrent() }
                entry = try cursor.next()
            }
            return nil
        }
    }
}
