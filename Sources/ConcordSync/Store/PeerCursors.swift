import ConcordStore
import LMDB

/// The suites a peer cursor covers: every suite, or one suite (after a sync limited to some suites).
///
/// ```swift
/// let scope: SyncScope = .suite("prefs")
/// ```
public enum SyncScope: Hashable, Sendable, CustomStringConvertible {
    /// Every suite: the cursor of a sync that was not limited to some suites.
    case allSuites
    /// One suite: the cursor of a sync limited to it.
    case suite(String)

    /// The suite name, or nil for every suite.
    public var suiteName: String? {
        if case .suite(let name) = self { return name }
        return nil
    }

    public var description: String { suiteName ?? "*" }
}

/// What this replica knows about one peer for one scope (see the architecture document, "Delta sync").
///
/// - `received`: the highest seq of the *peer's* journal this replica has merged;
///   a sync sends only the peer's entries after it.
/// - `acknowledged`: the highest seq of *this* replica's journal the peer is known to have merged;
///   a local record stored after it was not seen by the peer (a concurrent write), and a
///   tombstone is collectable only once every peer acknowledged it.
///
/// ```swift
/// for cursor in try store.peerCursors().cursors {
///     print(cursor.peer, cursor.scope, cursor.received, cursor.acknowledged)
/// }
/// ```
public struct PeerCursor: Hashable, Sendable {
    /// The peer replica.
    public let peer: ReplicaID
    /// The suites the cursor covers.
    public let scope: SyncScope
    /// The highest seq of the peer's journal this replica has merged.
    public var received: UInt64
    /// The highest seq of this replica's journal the peer is known to have merged.
    public var acknowledged: UInt64
    /// When the cursor last moved (wall-clock milliseconds since 1970).
    public var updatedMilliseconds: UInt64

    package init(peer: ReplicaID, scope: SyncScope, received: UInt64, acknowledged: UInt64, updatedMilliseconds: UInt64) {
        self.peer = peer
        self.scope = scope
        self.received = received
        self.acknowledged = acknowledged
        self.updatedMilliseconds = updatedMilliseconds
    }

    // Key: [peer 16][suite name, absent for every suite]. Value: [1][received 8][acknowledged 8][updated 8].

    var key: [UInt8] { Self.key(peer: peer, scope: scope) }

    static func key(peer: ReplicaID, scope: SyncScope) -> [UInt8] {
        var out = peer.bytes
        if let name = scope.suiteName { out.append(contentsOf: name.utf8) }
        return out
    }

    var encoded: [UInt8] {
        var out = ByteWriter(capacity: 25)
        out.u8(1)
        out.u64(received)
        out.u64(acknowledged)
        out.u64(updatedMilliseconds)
        return out.bytes
    }

    static func decode(key: [UInt8], value: [UInt8]) throws(ValueDecodingError) -> PeerCursor {
        guard key.count >= 16, let peer = ReplicaID(bytes: Array(key[..<16])) else { throw ValueDecodingError("a peer cursor key of \(key.count) bytes") }
        let scope: SyncScope
        if key.count == 16 {
            scope = .allSuites
        } else {
            guard let name = String(validating: key[16...], as: UTF8.self) else { throw ValueDecodingError("a peer cursor suite that is not UTF-8") }
            scope = .suite(name)
        }
        var r = ByteReader(value)
        let format = try r.u8()
        guard format == 1 else { throw ValueDecodingError("a peer cursor of unknown format \(format)") }
        let cursor = PeerCursor(peer: peer, scope: scope, received: try r.u64(), acknowledged: try r.u64(), updatedMilliseconds: try r.u64())
        guard r.isAtEnd else { throw ValueDecodingError("a peer cursor followed by \(r.remaining) bytes") }
        return cursor
    }
}

/// Every cursor of one replica, with the rule that combines scopes: for a suite, the effective
/// cursor is the greater of the every-suite cursor and that suite's own cursor.
///
/// ```swift
/// let table = try store.peerCursors()
/// let after = table.received(from: peer, suite: "prefs")   // send the peer's entries after this
/// ```
public struct PeerCursorTable: Hashable, Sendable {
    /// Every cursor, one per peer and scope.
    public let cursors: [PeerCursor]
    private let index: [ReplicaID: [SyncScope: PeerCursor]]

    package init(_ cursors: [PeerCursor]) {
        self.cursors = cursors
        var index: [ReplicaID: [SyncScope: PeerCursor]] = [:]
        for c in cursors { index[c.peer, default: [:]][c.scope] = c }
        self.index = index
    }

    /// Every peer this replica has synced with (or heard from).
    public var peers: [ReplicaID] { index.keys.sorted() }

    /// The cursor stored for exactly `scope` (nil if none).
    public func cursor(peer: ReplicaID, scope: SyncScope) -> PeerCursor? { index[peer]?[scope] }

    /// The highest seq of `peer`'s journal merged here for `suite` (every-suite and per-suite cursors combined).
    public func received(from peer: ReplicaID, suite: String) -> UInt64 {
        max(index[peer]?[.allSuites]?.received ?? 0, index[peer]?[.suite(suite)]?.received ?? 0)
    }

    /// The highest seq of this replica's journal `peer` is known to have merged for `suite`.
    public func acknowledged(by peer: ReplicaID, suite: String) -> UInt64 {
        max(index[peer]?[.allSuites]?.acknowledged ?? 0, index[peer]?[.suite(suite)]?.acknowledged ?? 0)
    }

    /// The cursor a sync of `scope` starts from: for every suite, the every-suite cursor; for one suite, the combined one.
    public func received(from peer: ReplicaID, scope: SyncScope) -> UInt64 {
        switch scope {
        case .allSuites: index[peer]?[.allSuites]?.received ?? 0
        case .suite(let name): received(from: peer, suite: name)
        }
    }

    static func load(_ rows: some ReplicaRows) throws -> PeerCursorTable {
        var out: [PeerCursor] = []
        let path = rows.path
        try rows.txn.scan(rows.layout.peers) { key, value in
            do { out.append(try PeerCursor.decode(key: key, value: value)) } catch {
                throw StoreError.damaged(path: path, reason: "a peer cursor does not decode: \(error)")
            }
            return true
        }
        return PeerCursorTable(out)
    }
}

extension ReplicaRows {
    /// What this replica knows about its peers, as this transaction sees it.
    package func peerCursors() throws -> PeerCursorTable { try PeerCursorTable.load(self) }
}

extension ReplicaTransaction {
    /// Moves this replica's cursor on `peer` for `scope` forward, never back: `received` and
    /// `acknowledged` each become the greater of the stored and the given value (nil leaves one as it is).
    /// Returns the cursor as stored.
    @discardableResult
    package func advancePeerCursor(peer: ReplicaID, scope: SyncScope, received: UInt64?, acknowledged: UInt64?) throws -> PeerCursor {
        precondition(peer != replica, "a replica keeps no cursor on itself")
        let key = PeerCursor.key(peer: peer, scope: scope)
        var cursor = PeerCursor(peer: peer, scope: scope, received: 0, acknowledged: 0, updatedMilliseconds: 0)
        if let bytes = try txn.get(layout.peers, key) {
            do { cursor = try PeerCursor.decode(key: key, value: bytes) } catch {
                throw StoreError.damaged(path: path, reason: "the cursor on \(peer) does not decode: \(error)")
            }
        }
        let before = cursor
        if let received { cursor.received = max(cursor.received, received) }
        if let acknowledged { cursor.acknowledged = max(cursor.acknowledged, acknowledged) }
        let isNew = before.updatedMilliseconds == 0
        if cursor != before || isNew {
            cursor.updatedMilliseconds = wallClockMilliseconds
            try txn.put(layout.peers, key, cursor.encoded)
        }
        return cursor
    }
}

extension Store {
    /// What this replica knows about its peers: how far it merged each, and how far each merged it.
    ///
    /// ```swift
    /// for cursor in try store.peerCursors().cursors { print(cursor.peer, cursor.received, cursor.acknowledged) }
    /// ```
    public func peerCursors() throws -> PeerCursorTable {
        try read { r in try r.peerCursors() }
    }

    /// Forgets every cursor on `peer` (a replica that will never sync again), so it no longer
    /// holds back tombstone collection. Returns how many cursors were removed.
    ///
    /// ```swift
    /// try store.forgetPeer(retiredReplica)
    /// ```
    ///
    /// - Parameter peer: The replica to forget.
    /// - Returns: How many cursors were removed (0 when the peer was unknown).
    /// - Throws: A storage error; nothing is removed then.
    @discardableResult
    public func forgetPeer(_ peer: ReplicaID) throws -> Int {
        try write { w in
            var keys: [[UInt8]] = []
            try w.txn.scan(w.layout.peers, from: peer.bytes) { key, _ in
                guard key.starts(with: peer.bytes) else { return false }
                keys.append(key)
                return true
            }
            for key in keys { try w.txn.delete(w.layout.peers, key) }
            return keys.count
        }
    }
}
