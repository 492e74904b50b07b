import LMDB

/// Brings a store of an older on-disk format to the current one, inside the write transaction that
/// then stamps the new format number (so the upgrade is all or nothing).
///
/// - Format 1 → 2: format 2 writes dates as seconds since 2001 (exactly what `Date` holds) under a
///   new value tag. Format 1's records stay readable as they are (their dates keep the old tag, read
///   as seconds since 1970), so nothing is rewritten; the new number makes an older Concord refuse the
///   store with its "newer format" error instead of meeting a tag it does not know.
/// - Format 2 → 3: format 3 may hold policy records (record flags 2: a counter's, max's, min's or set's
///   state) and the reserved suite `_concord` (policy declarations, schema versions). Nothing is
///   rewritten; the number keeps a format-2 Concord, which would merge a policy record as a damaged
///   one, away from the store.
enum FormatUpgrade {
    static func upgrade(_ txn: Transaction, meta: Database, from format: UInt32, path: String) throws {
        guard format >= 1 else { throw StoreError.damaged(path: path, reason: "format version 0") }
    }
}
