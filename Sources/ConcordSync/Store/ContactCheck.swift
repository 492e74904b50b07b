/// What one side finds when a contact with a peer begins (see the architecture document, "Trust and
/// time"): the peer's claims about this replica's history, checked against its marks, and the state
/// of this replica's own cursors on the peer. The other side finds the same about itself; together
/// they decide whether the contact is a delta or a resync.
///
/// <!-- assume: let peer: SyncHello = given() -->
/// ```swift
/// let mine = try store.beginContact(with: peer.replica, claims: peer.knowledge, selection: .all, dryRun: false)
/// if mine.forcesResync { /* this replica went back in time: resend everything both ways */ }
/// ```
package struct ContactCheck: Equatable, Sendable {
    /// The peer's claims about this replica, checked here.
    package var claims = ClaimsCheck()
    /// This replica's cursors on the peer predated history marks (they are converted now: nothing
    /// merged either way, so the first sync after an upgrade resends everything once).
    package var predatesMarks = false
    /// A cursor on the peer that the selection uses was reset by an earlier contact that found the peer
    /// restored, and no sync has bound it again since.
    package var unfinished = false

    package init() {}

    /// True when a claim about this replica does not hold: both sides then resend everything.
    package var forcesResync: Bool { !claims.failures.isEmpty }

    /// The causes this side reports, `me` being this replica and `peer` the other.
    package func causes(me: ReplicaID, peer: ReplicaID) -> [HistoryResync.Cause] {
        var out: [HistoryResync.Cause] = []
        if let failure = claims.firstFailure {
            out.append(failure.showsRollback ? .restored(me, detail: failure.description) : .unprovable(me, detail: failure.description))
        }
        if unfinished { out.append(.unfinished(peer)) }
        if predatesMarks { out.append(.predatesMarks) }
        return out
    }
}

extension Store {
    /// Begins a contact with `peer`: checks `claims` (its cursors on this replica) against this
    /// replica's marks, and converts this replica's cursors on the peer that predate marks into unbound
    /// ones (nothing merged, no echo left out until the peer proves it merged this replica's history),
    /// unless `dryRun`.
    package func beginContact(with peer: ReplicaID, claims: PeerKnowledge, selection: SyncSelection, dryRun: Bool) throws -> ContactCheck {
        let (check, table) = try read { r in (try r.check(claims.about(r.replica)), try r.peerCursors()) }
        var out = ContactCheck()
        out.claims = check
        out.predatesMarks = !table.predatingMarks(peer).isEmpty
        out.unfinished = table.cursors.contains { $0.peer == peer && selection.uses($0.scope) && $0.unbound == .peerRestored }
        guard !dryRun else { return out }
        // What to write: cursors predating marks become unbound ones (nothing merged either way, no echo
        // left out until the peer proves it merged this replica's history); a disproven claim is kept so
        // exports tell the peer, and forgotten once its claims hold again.
        let failed = Dictionary(check.failures.compactMap { f in f.mark.map { (f.scope, $0) } }, uniquingKeysWith: { a, _ in a })
        let stale = table.cursors.filter { $0.peer == peer && $0.disproven != nil && failed[$0.scope] == nil }
        guard out.predatesMarks || !failed.isEmpty || !stale.isEmpty else { return out }
        try write { w in
            for cursor in try w.peerCursors().predatingMarks(peer) {
                var reset = cursor
                (reset.received, reset.acknowledged, reset.mark, reset.echoSafe, reset.since) = (0, 0, nil, false, w.lastSeq)
                reset.unbound = nil
                reset.updatedMilliseconds = w.wallClockMilliseconds
                try w.putRow(.peers, reset.key, reset.encoded)
            }
            for (scope, mark) in failed {
                var change = CursorChange()
                change.disproven = .some(mark)
                try w.changePeerCursor(peer: peer, scope: scope, change)
            }
            for cursor in stale {
                var change = CursorChange()
                change.disproven = .some(nil)
                try w.changePeerCursor(peer: peer, scope: cursor.scope, change)
            }
        }
        return out
    }

    /// Resets every cursor this replica holds on `peer`, which was found restored from an earlier
    /// state: what it merged of the peer, and what the peer merged of it, count as nothing now.
    package func resetCursors(on peer: ReplicaID) throws {
        try write { w in try w.resetPeerCursors(peer, because: .peerRestored) }
    }
}

extension SyncSelection {
    /// Whether a cursor of `scope` counts for this selection (the every-suite cursor counts for all).
    func uses(_ scope: SyncScope) -> Bool {
        switch scope {
        case .allSuites: true
        case .suite(let name): includes(name)
        }
    }
}
