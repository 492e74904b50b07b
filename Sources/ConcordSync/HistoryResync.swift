/// Why a sync sent everything both ways instead of a delta (see the architecture document, "Trust
/// and time"): a replica's peer had merged a history that replica no longer holds — it was restored
/// from an earlier state (a backup, a file-system or VM snapshot) or is a copy that kept running
/// beside its original — or cursors could not be proven. Merging is idempotent, so resending
/// everything is always safe; the replicas then hold every record either had.
///
/// Reports say it in words (``SyncReport/resyncReason``); the command-line tool names the replicas.
package struct HistoryResync: Sendable, Equatable, CustomStringConvertible {
    /// One reason for the resync.
    package enum Cause: Sendable, Equatable {
        /// `replica`'s history is not the one its peer had merged (`detail` says how it differs).
        case restored(ReplicaID, detail: String)
        /// A cursor on `replica` is bound to a mark that replica has pruned: nothing proves its history,
        /// and nothing shows a rollback either.
        case unprovable(ReplicaID, detail: String)
        /// A cursor on `replica` was reset by an earlier sync that found it restored and did not finish.
        case unfinished(ReplicaID)
        /// Cursors written before history marks existed (a store upgraded from format 4 or older): they
        /// are replaced by bound ones, once.
        case predatesMarks
    }

    /// Every reason found, the rollbacks first.
    package let causes: [Cause]

    /// A resync for `causes` (nil when there are none).
    package init?(_ causes: [Cause]) {
        guard !causes.isEmpty else { return nil }
        self.causes = causes.sorted { $0.rank < $1.rank }
    }

    /// The replicas found restored from an earlier state (or copied).
    package var restored: [ReplicaID] {
        causes.compactMap {
            if case .restored(let id, _) = $0 { return id }
            return nil
        }
    }

    /// The main cause in words, naming replicas by `name` (the CLI passes "A" and "B").
    package func summary(naming name: (ReplicaID) -> String) -> String {
        switch causes[0] {
        case .restored(let id, let detail): "\(name(id)) was restored from an earlier state (\(detail))"
        case .unprovable(let id, let detail): "\(name(id))'s history cannot be proven (\(detail))"
        case .unfinished(let id): "\(name(id)) was restored from an earlier state (found by an earlier sync that did not finish)"
        case .predatesMarks: "the cursors between the replicas predate history marks (a store upgraded from an older format)"
        }
    }

    package var description: String { summary { "replica \($0)" } }
}

extension HistoryResync.Cause {
    fileprivate var rank: Int {
        switch self {
        case .restored: 0
        case .unfinished: 1
        case .unprovable: 2
        case .predatesMarks: 3
        }
    }
}
