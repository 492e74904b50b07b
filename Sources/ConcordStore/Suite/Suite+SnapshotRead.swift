/// A stored value together with the snapshot it was read from, so a caller can cache it
/// against ``Store/commitStamp`` without opening a transaction on every read.
package struct SnapshotRead: Sendable, Equatable {
    /// The stored value (registered defaults not included), or `nil` when nothing or a tombstone is stored.
    package let value: Value?
    /// The commit stamp of the snapshot the value was read from: the value is still current
    /// for as long as `store.commitStamp` equals it (and, when it expires, until `expiry`).
    package let snapshot: Int
    /// When the value read expires (wall-clock milliseconds since 1970), if it does: from then on
    /// the key reads as absent although nothing was committed.
    package var expiry: UInt64? = nil
}

extension Suite {
    /// Reads the stored value of `key` (registered defaults not included) and the commit stamp
    /// of the snapshot it came from, in one read transaction.
    package func snapshotRead(forKey key: String) throws -> SnapshotRead {
        let stored = try storedRow(forKey: key)
        guard stored.isStored else { return SnapshotRead(value: nil, snapshot: stored.snapshot) }
        let options = store.options
        let (value, expiry) = try stored.reader.read(stored.bytes, now: options.clock.read)
        return SnapshotRead(value: value, snapshot: stored.snapshot, expiry: expiry)
    }
}
