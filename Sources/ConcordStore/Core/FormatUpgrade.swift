import LMDB

/// Brings a store of an older on-disk format to the current one, inside the write transaction that
/// then stamps the new format number (so the upgrade is all or nothing: a crash at any point leaves
/// the store in the old format or the new one).
///
/// - Format 1 → 2: format 2 writes dates as seconds since 2001 (exactly what `Date` holds) under a
///   new value tag. Format 1's records stay readable as they are (their dates keep the old tag, read
///   as seconds since 1970), so nothing is rewritten; the new number makes an older Concord refuse the
///   store with its "newer format" error instead of meeting a tag it does not know.
/// - Format 2 → 3: format 3 may hold policy records (record flags 2: a counter's, max's, min's or set's
///   state) and the reserved suite `_concord` (policy declarations, schema versions). Nothing is
///   rewritten; the number keeps a format-2 Concord, which would merge a policy record as a damaged
///   one, away from the store.
/// - Format 3 → 4: journal entries of format 2 carry the replica clock, and the journal's last entry
///   is where the clock and last seq live (`ReplicaState`), so a commit does not rewrite
///   `meta/state`. The entries already there (format 1) stay readable, and `meta/state` stays as the
///   lower bound it now is, so nothing is rewritten; the number keeps a format-3 Concord, which would
///   read a stale `meta/state` and hand out seqs twice, away from the store.
/// - Format 4 → 5: peer cursors are bound to history marks (the architecture document, "Trust and
///   time"). The `marks` database (created when the store opens, empty in an upgraded store) holds this
///   replica's marks and `meta/marks-pruned` how far they were pruned; peer rows of format 2 carry the
///   peer's mark, whether echoes may be left out, and the marks of this replica the peer holds. Rows of
///   format 1 stay as they are and read as unbound (nothing proves them): the first contact with each
///   peer replaces them. Nothing is rewritten; the number keeps a format-4 Concord, which would refuse
///   format-2 rows as damaged and hand out cursors no mark proves, away from the store.
/// - Format 5 → 7 (6 was set aside for an append-only journal that no release wrote): a record may
///   carry an expiry (record flags 3: the expiry's milliseconds since 1970 after the replica id, then
///   the value; a policy state's base of kind 3 likewise), and the `expiries` database indexes every
///   record that expires by its expiry (`StoreLayout`). No store of an older format holds an expiring
///   record, so the index starts empty (it is created when the store opens) and nothing is rewritten;
///   the number keeps a format-5 Concord, which would refuse flags 3 as damage and not keep the index,
///   away from the store.
/// - Format 7 → 8: the journal is append-only. A change leaves the entry it supersedes in place, and
///   readers pass over an entry its key's row no longer points at, until `JournalCompaction` removes
///   such entries in bulk. A format-7 journal (one entry per key) is such a journal with none to pass
///   over, so nothing is rewritten; the number keeps a format-7 Concord, which would deliver and send
///   superseded entries as changes and report them as damage, away from the store.
/// - Format 8 → 9: a record of an encrypted suite is sealed (record flags 4, or 5 for a sealed
///   tombstone: the nonce, ciphertext and tag after the replica id), under its name's keyed hash, and
///   the reserved suite may declare a suite encrypted (`sealed:SUITE`). No store of an older format
///   holds a sealed record, so nothing is rewritten; the number keeps a format-8 Concord, which would
///   refuse flags 4 as damage and write the suite in the clear, away from the store.
package enum FormatUpgrade {
    static func upgrade(_ txn: Transaction, meta: Database, from format: UInt32, path: String) throws {
        guard format >= 1 else { throw ConcordError.damaged(path: path, reason: "format version 0") }
        checkpoint(.upgraded)
    }
}
