import Foundation

/// One side of a conflict as the log keeps it: the record and who made the change.
package struct ConflictSide: Hashable, Sendable {
    /// The record: its value (or tombstone) and its version.
    package let record: Record
    /// A process writing to the replica, or a sync from the named peer.
    package let source: ChangeSource

    package init(record: Record, source: ChangeSource) {
        self.record = record
        self.source = source
    }
}

/// Two concurrent writes of one key met in a merge (see the architecture document, "Conflicts"): last-writer-wins kept
/// `winner`, and the losing write is kept here so nothing is silently forgotten.
///
/// ```swift
/// for c in try store.conflicts(suite: "prefs") {
///     print(c.key, "kept", c.winner.version, "lost", try c.loser.value() ?? "deleted", "from", c.loserOrigin)
/// }
/// ```
public struct Conflict: Hashable, Sendable {
    /// The suite of the key both writes changed.
    public let suite: String
    /// The key both writes changed.
    public let key: String
    /// The write last-writer-wins kept and who made it.
    package let winnerSide: ConflictSide
    /// The concurrent write that lost and who made it.
    package let loserSide: ConflictSide
    /// The peer being merged when the conflict was found.
    public let peer: ReplicaID
    /// When it was found (wall-clock milliseconds since 1970).
    package let detectedMilliseconds: UInt64

    /// When it was found (this replica's wall clock).
    public var detected: Date { Date(milliseconds: detectedMilliseconds) }

    /// The write last-writer-wins kept (the greater version): its value, or a tombstone, and version.
    public var winner: Record { winnerSide.record }
    /// The concurrent write that lost, kept here (its version's replica wrote it).
    public var loser: Record { loserSide.record }
    /// How the winning write reached this replica: written here, or merged by a sync from a peer.
    public var winnerOrigin: ChangeOrigin { ChangeOrigin(winnerSide.source) }
    /// How the losing write reached this replica: written here, or merged by a sync from a peer.
    public var loserOrigin: ChangeOrigin { ChangeOrigin(loserSide.source) }

    package init(suite: String, key: String, winner: ConflictSide, loser: ConflictSide, peer: ReplicaID, detectedMilliseconds: UInt64) {
        self.suite = suite
        self.key = key
        self.winnerSide = winner
        self.loserSide = loser
        self.peer = peer
        self.detectedMilliseconds = detectedMilliseconds
    }

    // Key: [suite][0][key][loser hlc 8][loser replica 16], so logging the same loss twice keeps one entry.
    // Value: [1][suite length 1][suite][key length 2][key][peer 16][detected 8][winner side][loser side];
    // a side is [source kind 1][source 16][record length 4][record].

    var storageKey: [UInt8] {
        var out = ByteWriter()
        out.append(StoreLayout.recordKey(suite: suite, key: key))
        out.u64(loser.version.hlc)
        out.append(loser.version.replica.bytes)
        return out.bytes
    }

    var encoded: [UInt8] {
        var out = ByteWriter()
        out.u8(1)
        out.string(suite, lengthBytes: 1)
        out.string(key, lengthBytes: 2)
        out.append(peer.bytes)
        out.u64(detectedMilliseconds)
        for side in [winnerSide, loserSide] {
            side.source.encode(into: &out)
            let record = side.record.encoded
            out.u32(UInt32(record.count))
            out.append(record)
        }
        return out.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(ValueDecodingError) -> Conflict {
        var r = ByteReader(bytes)
        let format = try r.u8()
        guard format == 1 else { throw ValueDecodingError("a conflict of unknown format \(format)") }
        let suite = try r.string(lengthBytes: 1)
        let key = try r.string(lengthBytes: 2)
        let peer = ReplicaID(bytes: Array(try r.take(16)))!
        let detected = try r.u64()
        var sides: [ConflictSide] = []
        for _ in 0..<2 {
            let source = try ChangeSource.decode(&r)
            let length = Int(try r.u32())
            let record = try Record.decode(Array(try r.take(length)))
            sides.append(ConflictSide(record: record, source: source))
        }
        guard r.isAtEnd else { throw ValueDecodingError("a conflict followed by \(r.remaining) bytes") }
        return Conflict(suite: suite, key: key, winner: sides[0], loser: sides[1], peer: peer, detectedMilliseconds: detected)
    }
}

extension ReplicaTransaction {
    /// Keeps `conflict` in the replica's conflict log, in this transaction. Logging the same lost write
    /// again (the same key and losing version) replaces the earlier entry, so repeated merges log it once.
    package func logConflict(_ conflict: Conflict) throws {
        try putRow(.conflicts, conflict.storageKey, conflict.encoded)
    }
}

extension Store {
    /// The conflict log of every suite (or of one), in suite and key order.
    ///
    /// ```swift
    /// let lost = try store.conflicts(suite: "prefs")
    /// ```
    ///
    /// - Parameter suite: The suite whose conflicts to list, or nil for every suite.
    /// - Returns: Each logged conflict: the key, the winning and the losing write, the peer, when.
    /// - Throws: ``ConcordError`` `.invalidSuiteName`, or ``ConcordError`` `.damaged` when an entry does not decode.
    public func conflicts(suite: String? = nil) throws -> [Conflict] {
        if let suite { try Names.validateSuite(suite) }
        return try read { r in try r.conflicts(suite: suite).compactMap { try $0.opened(r, keyring: core.keyring) } }
    }

    /// Removes the conflict log of every suite (or of one) and returns what it held, in one
    /// transaction: a conflict logged meanwhile is either returned or kept, never lost.
    ///
    /// ```swift
    /// let cleared = try store.clearConflicts()
    /// ```
    ///
    /// - Parameter suite: The suite whose conflicts to clear, or nil for every suite.
    /// - Returns: The conflicts removed.
    /// - Throws: ``ConcordError`` `.invalidSuiteName`, or a storage error (nothing is removed then).
    @discardableResult
    public func clearConflicts(suite: String? = nil) throws -> [Conflict] {
        if let suite { try Names.validateSuite(suite) }
        return try write { w in
            let found = try w.conflicts(suite: suite)
            for c in found { try w.deleteRow(.conflicts, c.storageKey) }
            return try found.compactMap { try $0.opened(w, keyring: core.keyring) }
        }
    }
}

extension ReplicaRows {
    /// The conflict log of every suite (or of one), in suite and key order.
    func conflicts(suite: String?) throws -> [Conflict] {
        let prefix = suite.map { StoreLayout.suitePrefix($0) } ?? []
        var out: [Conflict] = []
        try scanRows(.conflicts, from: prefix.isEmpty ? nil : prefix) { key, value in
            guard key.starts(with: prefix) else { return false }
            do { out.append(try Conflict.decode(value)) } catch {
                throw ConcordError.damaged(path: path, reason: "a conflict log entry does not decode: \(error)")
            }
            return true
        }
        return out
    }
}

extension Conflict {
    /// This conflict with its key's name and both writes opened, for a conflict of an encrypted suite
    /// (logged as merged: sealed, under the row key) when this process holds the suite's key; nil when
    /// it does not (nothing of it is readable here); a conflict of a suite in the clear as it is.
    func opened(_ rows: some ReplicaRows, keyring: SuiteKeyring) throws -> Conflict? {
        guard winner.isSealed || loser.isSealed else { return self }
        guard case let sealing?? = try? rows.sealing(suite: suite, keyring: keyring) else { return nil }
        do {
            guard case (let name, let winner)? = try sealing.openWithAnyKey(winnerSide.record, storedKey: key),
                case (_, let loser)? = try sealing.openWithAnyKey(loserSide.record, storedKey: key)
            else { return nil }
            return Conflict(
                suite: suite, key: name, winner: ConflictSide(record: winner, source: winnerSide.source),
                loser: ConflictSide(record: loser, source: loserSide.source), peer: peer, detectedMilliseconds: detectedMilliseconds)
        } catch {
            throw RowReader(suite: suite, key: key, path: rows.path).undecodable(error)
        }
    }
}
