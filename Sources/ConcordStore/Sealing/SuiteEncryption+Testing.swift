import Synchronization

/// A hook for the crash tests of encrypting a suite and rotating its key: a test helper process stops
/// at a chosen point of `ReplicaTransaction.encryptSuite` or `rotateSuiteKey` and is killed there.
/// Not part of the API.
package enum SuiteEncryptionCheckpoint: String, CaseIterable, Sendable {
    /// The declaration is written; no value is sealed (again) yet.
    case declared
    /// Half of the values in the clear are sealed again (of a rotation: half of the old rows are removed).
    case halfway
    /// Every value is sealed and the journal cleared of them; the transaction is not yet committed.
    case sealed

    private static let hook = Mutex<(@Sendable (SuiteEncryptionCheckpoint) -> Void)?>(nil)

    /// Calls `body` at every checkpoint of every encryption this process runs.
    package static func setHookForTesting(_ body: (@Sendable (SuiteEncryptionCheckpoint) -> Void)?) {
        hook.withLock { $0 = body }
    }

    static func reach(_ point: SuiteEncryptionCheckpoint) {
        hook.withLock { $0 }?(point)
    }
}
