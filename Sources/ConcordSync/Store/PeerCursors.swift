/// The suites a peer cursor covers: every suite, or one suite (after a sync limited to some suites).
///
/// ```swift
/// let scope: SyncScope = .suite("prefs")
/// ```
package enum SyncScope: Hashable, Sendable, CustomStringConvertible {
    /// Every suite: the cursor of a sync that was not limited to some suites.
    case allSuites
    /// One suite: the cursor of a sync limited to it.
    case suite(String)

    /// The suite name, or nil for every suite.
    package var suiteName: String? {
        if case .suite(let name) = self { return name }
        return nil
    }

    package var description: String { suiteName ?? "*" }
}

/// What this replica knows about one peer for one scope (see the architecture document, "Delta sync"
/// and "Trust and time").
///
/// - `received`: the highest seq of the *peer's* journal this replica has merged;
///   a sync sends only the peer's entries after it — while the cursor is bound to a mark of the
///   peer's history the peer still holds (an unbound cursor counts as nothing merged).
/// - `acknowledged`: the highest seq of *this* replica's journal the peer is known to have merged;
///   a local record stored after it was not seen by the peer (a concurrent write), and a
///   tombstone is collectable only once every peer acknowledged it.
///
/// ```swift
/// for cursor in try store.peerCursors().cursors {
///     print(cursor.peer, cursor.scope, cursor.received, cursor.acknowledged, cursor.isBound)
/// }
/// ```
package struct PeerCursor: Hashable, Sendable {
    /// The peer replica.
    package let peer: ReplicaID
    /// The suites the cursor covers.
    package let scope: SyncScope
    /// The highest seq of the peer's journal this replica has merged.
    package var received: UInt64
    /// The highest seq of this replica's journal the peer is known to have merged.
    package var acknowledged: UInt64
    /// When the cursor last moved (wall-clock milliseconds since 1970).
    package var updatedMilliseconds: UInt64
    /// The peer's mark `received` is bound to: the next contact checks that the peer still holds it.
    package var mark: HistoryMark?
    /// Whether a sync may leave out, when sending to the peer, every record this replica got from it:
    /// false after the peer was found restored (and for a cursor new or predating marks), until the peer
    /// is known to have merged this replica's history through `since`. Until then only the records got
    /// from it after `since` are left out (they came from the history the cursor is bound to).
    package var echoSafe = false
    /// This replica's last seq when the cursor was created or reset (see `echoSafe`).
    package var since: UInt64 = 0
    /// This replica's marks the peer was given last (newest first, at most two): kept while it may hold them.
    package var held: [HistoryMark] = []
    /// Why the cursor is unbound, when it is.
    package var unbound: UnboundReason?
    /// The mark the peer's last claim about this replica was bound to, which this replica found it
    /// does not hold: exports to the peer say so, so it learns its cursor on this replica is false.
    package var disproven: HistoryMark?

    /// Why a cursor carries no mark.
    package enum UnboundReason: UInt8, Sendable {
        /// Written before history marks existed (store format 4 or older).
        case predatesMarks = 1
        /// Reset when the peer was found restored from an earlier state.
        case peerRestored = 2
    }

    package init(peer: ReplicaID, scope: SyncScope, received: UInt64, acknowledged: UInt64, updatedMilliseconds: UInt64) {
        self.peer = peer
        self.scope = scope
        self.received = received
        self.acknowledged = acknowledged
        self.updatedMilliseconds = updatedMilliseconds
    }

    /// True when `received` is bound to a mark of the peer's history (so a contact can prove it).
    package var isBound: Bool { mark != nil }

    /// What the cursor claims about the peer's history: `received` when bound, nothing otherwise.
    package var claim: UInt64 { mark == nil ? 0 : received }

    // Key: [peer 16][suite name, absent for every suite].
    // Value (format 2): [2][received 8][acknowledged 8][updated 8][flags 1][since 8][mark 24 when flags & 1]
    //   [held count 1][held 24 each][disproven 24 when flags & 16]; flags: 1 bound, 2 echo-safe, 4 unbound
    //   as predating marks, 8 reset after the peer was found restored, 16 a claim of the peer disproven.
    //   Format 1: [1][received 8][acknowledged 8][updated 8], unbound.

    package var key: [UInt8] { Self.key(peer: peer, scope: scope) }

    package static func key(peer: ReplicaID, scope: SyncScope) -> [UInt8] {
        var out = peer.bytes
        if let name = scope.suiteName { out.append(contentsOf: name.utf8) }
        return out
    }

    var encoded: [UInt8] {
        var out = ByteWriter(capacity: 34 + HistoryMark.size * (1 + held.count) + 1)
        out.u8(2)
        out.u64(received)
        out.u64(acknowledged)
        out.u64(updatedMilliseconds)
        var flags: UInt8 = mark == nil ? 0 : 1
        if echoSafe { flags |= 2 }
        if unbound == .predatesMarks { flags |= 4 }
        if unbound == .peerRestored { flags |= 8 }
        if disproven != nil { flags |= 16 }
        out.u8(flags)
        out.u64(since)
        if let mark { out.append(mark.encoded) }
        out.u8(UInt8(held.count))
        for m in held { out.append(m.encoded) }
        if let disproven { out.append(disproven.encoded) }
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
        guard format == 1 || format == 2 else { throw ValueDecodingError("a peer cursor of unknown format \(format)") }
        var cursor = PeerCursor(peer: peer, scope: scope, received: try r.u64(), acknowledged: try r.u64(), updatedMilliseconds: try r.u64())
        if format == 1 {
            // Nothing it merged is proven to be the peer's still: no echo is left out until it is replaced.
            (cursor.unbound, cursor.since) = (.predatesMarks, .max)
        } else {
            let flags = try r.u8()
            guard flags & ~31 == 0 else { throw ValueDecodingError("a peer cursor with unknown flags \(flags)") }
            cursor.since = try r.u64()
            if flags & 1 != 0 { cursor.mark = try HistoryMark.decode(&r) }
            cursor.echoSafe = flags & 2 != 0
            cursor.unbound = flags & 4 != 0 ? .predatesMarks : flags & 8 != 0 ? .peerRestored : nil
            let count = Int(try r.u8())
            guard count <= 2 else { throw ValueDecodingError("a peer cursor holding \(count) given marks") }
            for _ in 0..<count { cursor.held.append(try HistoryMark.decode(&r)) }
            if flags & 16 != 0 { cursor.disproven = try HistoryMark.decode(&r) }
        }
        guard r.isAtEnd else { throw ValueDecodingError("a peer cursor followed by \(r.remaining) bytes") }
        return cursor
    }
}

/// Every cursor of one replica, with the rule that combines scopes: for a suite, the effective
/// cursor is the greater of the every-suite cursor and that suite's own cursor.
///
/// <!-- assume: let peer = phone.replicaID -->
/// ```swift
/// let table = try store.peerCursors()
/// let after = table.received(from: peer, suite: "prefs")   // send the peer's entries after this
/// ```
package struct PeerCursorTable: Hashable, Sendable {
    /// Every cursor, one per peer and scope.
    package let cursors: [PeerCursor]
    private let index: [ReplicaID: [SyncScope: PeerCursor]]

    package init(_ cursors: [PeerCursor]) {
        self.cursors = cursors
        var index: [ReplicaID: [SyncScope: PeerCursor]] = [:]
        for c in cursors { index[c.peer, default: [:]][c.scope] = c }
        self.index = index
    }

    /// Every peer this replica has synced with (or heard from).
    package var peers: [ReplicaID] { index.keys.sorted() }

    /// The cursor stored for exactly `scope` (nil if none).
    package func cursor(peer: ReplicaID, scope: SyncScope) -> PeerCursor? { index[peer]?[scope] }

    /// The highest seq of `peer`'s journal merged here for `suite` (every-suite and per-suite cursors
    /// combined), counting only cursors bound to a mark of the peer's history: an unbound cursor proves
    /// nothing, so it counts as 0 and the next sync sends everything.
    package func received(from peer: ReplicaID, suite: String) -> UInt64 {
        max(index[peer]?[.allSuites]?.claim ?? 0, index[peer]?[.suite(suite)]?.claim ?? 0)
    }

    /// The highest seq of this replica's journal `peer` is known to have merged for `suite`.
    package func acknowledged(by peer: ReplicaID, suite: String) -> UInt64 {
        max(index[peer]?[.allSuites]?.acknowledged ?? 0, index[peer]?[.suite(suite)]?.acknowledged ?? 0)
    }

    /// The cursor a sync of `scope` starts from: for every suite, the every-suite cursor; for one suite,
    /// the combined one (bound cursors only, as `received(from:suite:)`).
    package func received(from peer: ReplicaID, scope: SyncScope) -> UInt64 {
        switch scope {
        case .allSuites: index[peer]?[.allSuites]?.claim ?? 0
        case .suite(let name): received(from: peer, suite: name)
        }
    }

    /// Whether a sync to `peer` may leave out the record of `suite` at `seq` this replica got from it: a
    /// cursor covering the suite is echo-safe, or the record came after the cursor's `since` (from the
    /// history the cursor is bound to). The peer provably holds it then.
    package func mayLeaveOutEcho(to peer: ReplicaID, suite: String, seq: UInt64) -> Bool {
        for cursor in [index[peer]?[.allSuites], index[peer]?[.suite(suite)]] {
            if let cursor, cursor.echoSafe || seq > cursor.since { return true }
        }
        return false
    }

    /// The cursors on `peer` that carry a claim without a mark (written before marks existed).
    package func predatingMarks(_ peer: ReplicaID) -> [PeerCursor] {
        (index[peer]?.values).map { $0.filter { $0.unbound == .predatesMarks } } ?? []
    }

    static func load(_ rows: some ReplicaRows) throws -> PeerCursorTable {
        var out: [PeerCursor] = []
        let path = rows.path
        try rows.scanRows(.peers) { key, value in
            do { out.append(try PeerCursor.decode(key: key, value: value)) } catch {
                throw ConcordError.damaged(path: path, reason: "a peer cursor does not decode: \(error)")
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

/// A change to one cursor row (see `ReplicaTransaction.changePeerCursor`).
package struct CursorChange {
    /// This replica merged the peer's history through `seq`, as the peer's `mark` covers it (`replace`:
    /// the value replaces the stored one, which may go back; otherwise the cursor only moves forward,
    /// and a newer mark alone rebinds it).
    package var received: (seq: UInt64, mark: HistoryMark?, replace: Bool)?
    /// The peer merged this replica's history through `seq` (`replace` as above).
    package var acknowledged: (seq: UInt64, replace: Bool)?
    /// The peer merged this replica's history through `seq`, as of its `mark`: once that reaches the
    /// row's `since`, echoes may be left out again, and the row is bound to that mark.
    package var proof: (seq: UInt64, mark: HistoryMark)?
    /// This replica's mark given to the peer.
    package var given: HistoryMark?
    /// The `since` of a cursor this change creates: this replica's last seq before the merge that
    /// creates it (records it got from the peer after that came from the peer's history at hand).
    package var sinceIfNew: UInt64?
    /// The peer's claim about this replica named this mark, which this replica does not hold (nil in
    /// `disproven`: the peer's claim holds again, forget the last disproven one).
    package var disproven: HistoryMark??

    package init() {}
}

extension ReplicaTransaction {
    /// The cursor stored on `peer` for `scope` (a fresh one when there is none).
    package func peerCursor(_ peer: ReplicaID, scope: SyncScope) throws -> PeerCursor {
        let key = PeerCursor.key(peer: peer, scope: scope)
        guard let bytes = try row(.peers, key) else {
            return PeerCursor(peer: peer, scope: scope, received: 0, acknowledged: 0, updatedMilliseconds: 0)
        }
        do { return try PeerCursor.decode(key: key, value: bytes) } catch {
            throw ConcordError.damaged(path: path, reason: "the cursor on \(peer) does not decode: \(error)")
        }
    }

    /// Applies `change` to this replica's cursor on `peer` for `scope` and returns the cursor as stored.
    @discardableResult
    package func changePeerCursor(peer: ReplicaID, scope: SyncScope, _ change: CursorChange) throws -> PeerCursor {
        precondition(peer != replica, "a replica keeps no cursor on itself")
        var cursor = try peerCursor(peer, scope: scope)
        let before = cursor
        if before.updatedMilliseconds == 0 || before.since == .max { cursor.since = change.sinceIfNew ?? lastSeq }
        if let (seq, mark, replace) = change.received {
            if replace || cursor.mark == nil {
                // Replacing, or an unbound cursor (whose value proves nothing): take the new value.
                cursor.received = seq
                cursor.mark = mark.flatMap { $0.seq >= seq ? $0 : nil }
                cursor.unbound = cursor.mark == nil && seq > 0 ? cursor.unbound : nil
            } else {
                cursor.received = max(cursor.received, seq)
                if let mark, mark.seq >= cursor.received, mark.seq >= cursor.mark!.seq { cursor.mark = mark }
                if cursor.mark!.seq < cursor.received { cursor.mark = nil }
            }
        }
        if let (seq, replace) = change.acknowledged { cursor.acknowledged = replace ? seq : max(cursor.acknowledged, seq) }
        if let (seq, mark) = change.proof {
            if !cursor.echoSafe && seq >= cursor.since { cursor.echoSafe = true }
            // The proof's mark is the peer's state after it merged this replica through `seq`: binding the
            // cursor to it means a peer restored to before that merge fails the next check.
            if cursor.echoSafe, let bound = cursor.mark, mark.seq >= cursor.received, mark.seq >= bound.seq { cursor.mark = mark }
        }
        if let given = change.given, cursor.held.first != given { cursor.held = [given] + cursor.held.filter { $0 != given }.prefix(1) }
        if let disproven = change.disproven { cursor.disproven = disproven }
        if cursor != before || before.updatedMilliseconds == 0 {
            cursor.updatedMilliseconds = wallClockMilliseconds
            try putRow(.peers, cursor.key, cursor.encoded)
            cursorsChanged = true
        }
        return cursor
    }

    /// Moves this replica's cursor on `peer` for `scope` forward, never back: `received` and
    /// `acknowledged` each become the greater of the stored and the given value (nil leaves one as it is).
    @discardableResult
    package func advancePeerCursor(peer: ReplicaID, scope: SyncScope, received: UInt64?, acknowledged: UInt64?) throws -> PeerCursor {
        var change = CursorChange()
        if let received { change.received = (received, nil, false) }
        if let acknowledged { change.acknowledged = (acknowledged, false) }
        return try changePeerCursor(peer: peer, scope: scope, change)
    }

    /// Puts `cursors` back as they were read (rows of one peer, before a change the peer then refused).
    package func restorePeerCursors(_ cursors: [PeerCursor]) throws {
        for cursor in cursors { try putRow(.peers, cursor.key, cursor.encoded) }
    }

    /// Resets every cursor on `peer` after its history was found not to be the one they were bound to
    /// (or they predate marks): nothing merged either way, no echo left out until the peer is known to
    /// have merged this replica's history through its last seq now. Returns how many cursors changed.
    @discardableResult
    package func resetPeerCursors(_ peer: ReplicaID, because reason: PeerCursor.UnboundReason) throws -> Int {
        var changed = 0
        for var cursor in try peerCursors().cursors where cursor.peer == peer {
            let before = cursor
            (cursor.received, cursor.acknowledged, cursor.mark, cursor.echoSafe) = (0, 0, nil, false)
            cursor.since = lastSeq
            cursor.unbound = reason
            guard cursor != before else { continue }
            cursor.updatedMilliseconds = wallClockMilliseconds
            try putRow(.peers, cursor.key, cursor.encoded)
            changed += 1
        }
        return changed
    }
}

extension Store {
    /// What this replica knows about its peers: how far it merged each, and how far each merged it.
    ///
    /// ```swift
    /// for cursor in try store.peerCursors().cursors { print(cursor.peer, cursor.received, cursor.acknowledged) }
    /// ```
    package func peerCursors() throws -> PeerCursorTable {
        try read { r in try r.peerCursors() }
    }

    /// Forgets every cursor on `peer` (a replica that will never sync again), so it no longer
    /// holds back tombstone collection. Returns how many cursors were removed.
    ///
    /// <!-- assume: let retiredReplica = phone.replicaID -->
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
            try w.scanRows(.peers, from: peer.bytes) { key, _ in
                guard key.starts(with: peer.bytes) else { return false }
                keys.append(key)
                return true
            }
            for key in keys { try w.deleteRow(.peers, key) }
            return keys.count
        }
    }
}
