import Synchronization

/// A hook for the crash tests of the format upgrade: a test helper process stops at a chosen point
/// of the upgrade and is killed there. Not part of the API.
extension FormatUpgrade {
    /// The points of an upgrade, in order.
    package enum Checkpoint: String, CaseIterable, Sendable {
        /// The write transaction that upgrades has begun; nothing is written yet.
        case began
        /// The upgrade steps ran; the new format number is not yet written.
        case upgraded
        /// The new format number is written; the transaction is not yet committed.
        case stamped
        /// The upgrade is committed.
        case committed
    }

    private static let hook = Mutex<(@Sendable (Checkpoint) -> Void)?>(nil)

    /// Calls `body` at every checkpoint of every upgrade this process runs.
    package static func setCheckpointHookForTesting(_ body: (@Sendable (Checkpoint) -> Void)?) {
        hook.withLock { $0 = body }
    }

    static func checkpoint(_ point: Checkpoint) {
        hook.withLock { $0 }?(point)
    }
}
