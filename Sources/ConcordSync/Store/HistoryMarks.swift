/// A point of a replica's history that a peer's cursor is bound to (see the architecture document,
/// "Trust and time"): 16 random bytes and the seq it covers. A replica writes a new mark, durably,
/// before it sends entries beyond its newest one, so a state that holds mark M at seq s holds exactly
/// the history up to s that every peer given M saw: a backup taken before M lacks it, and a copy
/// diverges only after marks of its own.
///
/// <!-- assume: let peer = phone -->
/// ```swift
/// let mark = try store.currentMark(givingTo: peer.replicaID, scopes: [.allSuites])
/// let claim = PeerKnowledge.Item(replica: store.replicaID, scope: .allSuites, seq: mark.seq, mark: mark)
/// ```
package struct HistoryMark: Hashable, Sendable, CustomStringConvertible {
    /// 16 random bytes.
    package let id: [UInt8]
    /// The last seq of the history it covers.
    package let seq: UInt64

    /// Bytes of a mark on disk and on the wire: the seq, then the id.
    package static let size = 24

    package init?(id: [UInt8], seq: UInt64) {
        guard id.count == 16 else { return nil }
        self.id = id
        self.seq = seq
    }

    /// A fresh mark covering `seq`.
    package static func random(seq: UInt64) -> HistoryMark {
        var g = SystemRandomNumberGenerator()
        return HistoryMark(id: (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }, seq: seq)!
    }

    /// `[seq 8][id 16]`: the marks table's key (so marks sort by seq) and their wire form.
    package var encoded: [UInt8] {
        var w = ByteWriter(capacity: Self.size)
        w.u64(seq)
        w.append(id)
        return w.bytes
    }

    package static func decode(_ r: inout ByteReader) throws(ValueDecodingError) -> HistoryMark {
        let seq = try r.u64()
        return HistoryMark(id: Array(try r.take(16)), seq: seq)!
    }

    package static func decode(_ bytes: [UInt8]) throws(ValueDecodingError) -> HistoryMark {
        guard bytes.count == size else { throw ValueDecodingError("a history mark of \(bytes.count) bytes, not \(size)") }
        var r = ByteReader(bytes)
        return try decode(&r)
    }

    package var description: String { "mark \(id.prefix(4).map { String($0, radix: 16) }.joined()) at seq \(seq)" }
}

/// What checking a peer's claim about this replica's history found.
package enum ClaimCheck: Equatable, Sendable {
    /// The claim is bound to a mark this replica holds: its history up to the claim is the one the peer merged.
    case proven
    /// The claim carries no mark (a cursor written before marks existed): nothing proves it.
    case unbound
    /// The claim is bound to a history this replica does not hold.
    case failed(ClaimFailure)
}

/// Why a claim about this replica's history does not hold.
package struct ClaimFailure: Equatable, Sendable, CustomStringConvertible {
    package enum Reason: Equatable, Sendable {
        /// The claim is past this replica's last seq.
        case pastLastSeq(UInt64)
        /// The mark is not one of this replica's (and is newer than any it pruned).
        case missingMark
        /// The mark may be one this replica pruned: the claim cannot be proven, but nothing shows a rollback.
        case pruned
    }

    /// The seq the peer claims to have merged.
    package let seq: UInt64
    package let reason: Reason
    /// The claim's scope and mark (the mark this replica does not hold).
    package var scope: SyncScope = .allSuites
    package var mark: HistoryMark?

    package init(seq: UInt64, reason: Reason, scope: SyncScope = .allSuites, mark: HistoryMark? = nil) {
        self.seq = seq
        self.reason = reason
        self.scope = scope
        self.mark = mark
    }

    /// Whether this shows the replica went back in time (rather than a mark pruned long ago).
    package var showsRollback: Bool { reason != .pruned }

    package var description: String {
        switch reason {
        case .pastLastSeq(let last): "it had been merged up to seq \(seq), and now ends at seq \(last)"
        case .missingMark: "its history up to seq \(seq), as merged, is not the one it holds"
        case .pruned: "the mark its cursor at seq \(seq) is bound to was pruned"
        }
    }
}

/// The marks a replica keeps: the newest `kept`, and those its peers were given last (two per cursor
/// row), so a peer that syncs rarely still finds its mark. A pruned mark makes a claim unprovable,
/// which costs a full resync, never data.
enum HistoryMarkRetention {
    static let kept = 32
    /// Pruning runs once the table holds this many more than it keeps.
    static let slack = 32
}

extension ReplicaRows {
    /// This replica's newest mark, or nil when it has none yet.
    package func latestMark() throws -> HistoryMark? {
        try lastRowKey(.marks).map(decodeMark)
    }

    /// Every mark this replica holds, oldest first (a bounded list).
    package func liveMarks() throws -> [HistoryMark] {
        var out: [HistoryMark] = []
        try scanRows(.marks) { key, _ in
            out.append(try decodeMark(key))
            return true
        }
        return out
    }

    /// Whether this replica holds `mark`.
    package func holds(_ mark: HistoryMark) throws -> Bool {
        try row(.marks, mark.encoded) != nil
    }

    /// Checks a peer's claim that it merged this replica's history through `claim.seq`, bound to `claim.mark`.
    package func check(_ claim: PeerKnowledge.Item) throws -> ClaimCheck {
        guard claim.seq > 0 else { return .proven } // a claim of nothing holds of every history
        guard let mark = claim.mark else { return .unbound }
        guard claim.seq <= lastSeq else {
            return .failed(ClaimFailure(seq: claim.seq, reason: .pastLastSeq(lastSeq), scope: claim.scope, mark: mark))
        }
        guard mark.seq >= claim.seq, try holds(mark) else {
            let pruned = try marksPrunedThrough()
            return .failed(ClaimFailure(seq: claim.seq, reason: mark.seq <= pruned ? .pruned : .missingMark, scope: claim.scope, mark: mark))
        }
        return .proven
    }

    func decodeMark(_ key: [UInt8]) throws -> HistoryMark {
        do { return try HistoryMark.decode(key) } catch { throw ConcordError.damaged(path: path, reason: "a history mark does not decode: \(error)") }
    }
}

extension ReplicaTransaction {
    /// The mark covering this transaction's history: the newest one when it covers the last seq, else
    /// a new one written here (and old ones pruned). `givingTo` records, in that peer's rows for
    /// `scopes`, that it is given the mark (so it is kept while the peer may hold it).
    @discardableResult
    package func markHistory(givingTo peer: ReplicaID? = nil, scopes: [SyncScope] = []) throws -> HistoryMark {
        var mark = try latestMark()
        if mark == nil || mark!.seq < lastSeq {
            let made = HistoryMark.random(seq: lastSeq)
            var value = ByteWriter(capacity: 8)
            value.u64(wallClockMilliseconds)
            try putRow(.marks, made.encoded, value.bytes)
            mark = made
            try pruneMarks()
        }
        if let peer {
            for scope in scopes { try recordGiven(mark!, to: peer, scope: scope) }
        }
        return mark!
    }

    /// Records in `peer`'s row for `scope`, when there is one, that it is given `mark`.
    private func recordGiven(_ mark: HistoryMark, to peer: ReplicaID, scope: SyncScope) throws {
        guard try row(.peers, PeerCursor.key(peer: peer, scope: scope)) != nil else { return }
        var change = CursorChange()
        change.given = mark
        try changePeerCursor(peer: peer, scope: scope, change)
    }

    /// Drops the marks that are neither among the newest `kept` nor given last to a peer.
    private func pruneMarks() throws {
        let marks = try liveMarks()
        guard marks.count > HistoryMarkRetention.kept + HistoryMarkRetention.slack else { return }
        var held = Set<HistoryMark>()
        for cursor in try peerCursors().cursors { held.formUnion(cursor.held) }
        var pruned = try marksPrunedThrough()
        for mark in marks.dropLast(HistoryMarkRetention.kept) where !held.contains(mark) {
            try deleteRow(.marks, mark.encoded)
            pruned = max(pruned, mark.seq)
        }
        try setMarksPrunedThrough(pruned)
    }
}

extension Store {
    /// The mark covering everything this replica holds now: the newest one, or (when entries were
    /// written after it) a new one, committed durably before this returns, so a batch read before it
    /// (whose end it covers) goes out bound to a mark a restored copy of this replica cannot hold
    /// unless it holds that history. With `givingTo`, that peer's rows for
    /// `scopes` record that it is given the mark. Nothing is written when the newest mark covers the
    /// last seq and was recorded as given already.
    package func currentMark(givingTo peer: ReplicaID? = nil, scopes: [SyncScope] = []) throws -> HistoryMark {
        let current = try read { r -> HistoryMark? in
            guard let mark = try r.latestMark(), mark.seq >= r.lastSeq else { return nil }
            guard let peer else { return mark }
            let table = try r.peerCursors()
            let recorded = scopes.allSatisfy { scope in table.cursor(peer: peer, scope: scope).map { $0.held.first == mark } ?? true }
            return recorded ? mark : nil
        }
        if let current { return current }
        return try write { w in try w.markHistory(givingTo: peer, scopes: scopes) }
    }
}

/// What checking every claim a peer makes about this replica's history found.
package struct ClaimsCheck: Equatable, Sendable {
    /// The claims that hold: what the peer provably merged of this replica.
    package var proven = PeerKnowledge.none
    /// The claims that do not hold.
    package var failures: [ClaimFailure] = []
    /// Claims that carry no mark (nothing proves them; they count as nothing merged).
    package var unbound = 0

    /// True when a claim shows that this replica went back in time (or is a copy that diverged).
    package var showsRollback: Bool { failures.contains { $0.showsRollback } }

    /// The first failure that shows a rollback, else the first one.
    package var firstFailure: ClaimFailure? { failures.first { $0.showsRollback } ?? failures.first }
}

extension ReplicaRows {
    /// Checks every item of `knowledge` about this replica (a peer's cursors on it).
    package func check(_ knowledge: PeerKnowledge) throws -> ClaimsCheck {
        var out = ClaimsCheck()
        var proven: [PeerKnowledge.Item] = []
        for item in knowledge.items where item.replica == replica {
            switch try check(item) {
            case .proven: proven.append(item)
            case .unbound: out.unbound += 1
            case .failed(let failure): out.failures.append(failure)
            }
        }
        out.proven = PeerKnowledge(items: proven)
        return out
    }
}

extension ClaimsCheck {
    /// Checks `cursors` (a replica's cursors on a peer) against the peer's history as the peer described
    /// it from elsewhere — a bundle's list of marks, a hub's marks table: `holds` says whether it holds a
    /// mark, `lastSeq` how far its history went, `prunedThrough` how far it pruned marks, `disproven`
    /// marks it said it lacks. A mark past `lastSeq` shows a rollback, unless `mayBeOlder` (a bundle
    /// made before the cursor moved): then `older` is true and nothing failed.
    package static func of(
        _ cursors: [PeerCursor], holds: (HistoryMark) -> Bool, lastSeq: UInt64, prunedThrough: UInt64,
        disproven: Set<HistoryMark> = [], mayBeOlder: Bool = false
    ) -> (check: ClaimsCheck, older: Bool) {
        var out = ClaimsCheck()
        var older = false
        for cursor in cursors where cursor.claim > 0 {
            guard let mark = cursor.mark, !holds(mark) else { continue }
            let failure = { (reason: ClaimFailure.Reason) in ClaimFailure(seq: cursor.claim, reason: reason, scope: cursor.scope, mark: mark) }
            if disproven.contains(mark) {
                out.failures.append(failure(.missingMark))
            } else if mark.seq <= prunedThrough {
                out.failures.append(failure(.pruned))
            } else if mark.seq <= lastSeq {
                out.failures.append(failure(.missingMark))
            } else if mayBeOlder {
                older = true
            } else {
                out.failures.append(failure(.pastLastSeq(lastSeq)))
            }
        }
        return (out, older)
    }
}
