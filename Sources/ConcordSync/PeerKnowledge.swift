/// What one replica has merged of others: "replica R's journal, through seq N, for scope S".
/// A batch carries its source's knowledge, so the receiver learns how far the source had merged
/// the receiver's own journal — the line between records the source had seen and concurrent ones.
/// Each item carries the mark of the history it is bound to: a replica checks the items about itself
/// before it trusts them (`ReplicaRows.check`), because a replica restored from an earlier state
/// makes its peers' items about it false.
///
/// <!-- assume: let otherReplica = laptop.replicaID -->
/// ```swift
/// let knowledge = PeerKnowledge(received: try store.peerCursors())
/// let seen = knowledge.merged(of: otherReplica, suite: "prefs")
/// ```
package struct PeerKnowledge: Hashable, Sendable {
    package struct Item: Hashable, Sendable {
        package let replica: ReplicaID
        package let scope: SyncScope
        package let seq: UInt64
        /// The mark of `replica`'s history the claim is bound to (nil: unbound, or a fact known in this process).
        package let mark: HistoryMark?

        package init(replica: ReplicaID, scope: SyncScope, seq: UInt64, mark: HistoryMark? = nil) {
            self.replica = replica
            self.scope = scope
            self.seq = seq
            self.mark = mark
        }
    }

    package let items: [Item]

    package init(items: [Item]) { self.items = items }

    /// Nothing known.
    package static let none = PeerKnowledge(items: [])

    /// What a replica has merged of its peers, from its cursor table (`received`): each bound cursor
    /// with its mark; an unbound one claims nothing.
    package init(received table: PeerCursorTable) {
        items = table.cursors.map { Item(replica: $0.peer, scope: $0.scope, seq: $0.claim, mark: $0.mark) }
    }

    /// What `peer` has merged of the replica owning `table`, from that replica's `acknowledged` cursors.
    package init(acknowledgedBy peer: ReplicaID, in table: PeerCursorTable, owner: ReplicaID) {
        items = table.cursors.filter { $0.peer == peer }.map { Item(replica: owner, scope: $0.scope, seq: $0.acknowledged) }
    }

    /// The items about `replica` only.
    package func about(_ replica: ReplicaID) -> PeerKnowledge { PeerKnowledge(items: items.filter { $0.replica == replica }) }

    /// How far `replica`'s journal has been merged for `suite` (every-suite and per-suite knowledge combined).
    package func merged(of replica: ReplicaID, suite: String) -> UInt64 {
        var best: UInt64 = 0
        for item in items where item.replica == replica {
            if item.scope == .allSuites || item.scope == .suite(suite) { best = max(best, item.seq) }
        }
        return best
    }

    /// How far `replica`'s journal has been merged for exactly `scope`'s cursor (for `.allSuites`, the every-suite item).
    package func merged(of replica: ReplicaID, scope: SyncScope) -> UInt64 {
        switch scope {
        case .allSuites: items.filter { $0.replica == replica && $0.scope == .allSuites }.map(\.seq).max() ?? 0
        case .suite(let name): merged(of: replica, suite: name)
        }
    }
}
