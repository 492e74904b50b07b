import LMDB

/// Reads, without a transaction and without reference-counting traffic, the two numbers a cache
/// of a stored value must check on every read: ``Store/commitStamp`` (changes with every commit by
/// any process) and the registered-defaults generation (changes whenever this process registers
/// defaults). The wrappers' per-key cache checks both.
///
/// ```swift
/// let stamps = store.stampReader
/// let read = try suite.snapshotRead(forKey: "theme")
/// // … on every later access:
/// if stamps.commitStamp() == read.snapshot { /* read.value is still what the store holds */ }
/// ```
@usableFromInline
package struct StampReader: Sendable {
    /// Keeps the replica, and so its LMDB environment, alive while the reader exists.
    private let store: Store
    private let commits: Environment.CommitStampReader
    private let defaults: DefaultsRegistry

    init(store: Store) {
        self.store = store
        self.commits = store.core.env.commitStampReader
        self.defaults = store.core.defaults
    }

    /// The same number as ``Store/commitStamp``.
    @usableFromInline
    package func commitStamp() -> Int { commits.read() }

    /// The store's wall clock (`Store.Options.wallClock`), in milliseconds since 1970: a cached value
    /// that expires is current only before its expiry.
    @usableFromInline
    package func wallClock() -> UInt64 { store.options.clock.read() }

    /// A number that changes whenever this process registers defaults for any suite of the replica.
    @usableFromInline
    package func registeredDefaultsGeneration() -> Int { defaults.generation.load(ordering: .acquiring) }
}

extension Store {
    /// A reader of `commitStamp` and of the registered-defaults generation that is cheap to call over and over.
    package var stampReader: StampReader { StampReader(store: self) }
}
