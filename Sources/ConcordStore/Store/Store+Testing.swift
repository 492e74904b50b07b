/// Hooks for the project's own tests; not part of the API.
extension Store {
    /// Runs `body` while holding a read transaction open (for tests of stale readers).
    package func holdReadTransactionForTesting(_ body: () throws -> Void) throws {
        try core.read { _ in try body() }
    }

    /// How many writes of this process wait for the commit under way to end (group commit).
    package var waitingWritesForTesting: Int { core.group.waitingCount }

    /// The most writes one group commit of this process takes for this replica (tests lower it).
    package var writesPerCommitForTesting: Int {
        get { core.group.writesPerCommit }
        set { core.group.writesPerCommit = newValue }
    }

    /// Tells this process's observers that the wall clock moved (a test's clock, which no timer
    /// follows): values that expired meanwhile are told now.
    package func wallClockMovedForTesting() { core.hub.wake() }
}
