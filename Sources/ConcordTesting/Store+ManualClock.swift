import Concord

/// Stores for tests: an isolated store whose clock the test moves by hand.
extension Store {
    /// An isolated store for one test: `Store.temporary(options:)` whose versions are stamped with
    /// `clock`'s time, so the test decides what time it is.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let store = try Store.temporary(clock: clock)
    /// try store.suite("app").set(1, forKey: "n")
    /// #expect(try store.suite("app").record(forKey: "n")?.version.time == clock.now)
    /// ```
    ///
    /// - Parameters:
    ///   - clock: The wall clock the store reads.
    ///   - options: Any other options. The default is the default options.
    /// - Returns: The new, empty store; its directory goes when the store is no longer used.
    /// - Throws: ``ConcordError`` `.io` when the directory cannot be created.
    public static func temporary(clock: ManualClock, options: Options = Options()) throws -> Store {
        var options = options
        options.wallClock = clock.read
        let store = try temporary(options: options)
        clock.onMove { [weak store] in store?.wallClockMovedForTesting() }
        return store
    }
}
