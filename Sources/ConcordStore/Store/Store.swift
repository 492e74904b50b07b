import Foundation

/// A replica: one directory holding named suites of typed, versioned values,
/// safe for many threads and many processes at once.
///
/// ```swift
/// let store = try Store(path: "/var/lib/myapp/settings")
/// let suite = try store.suite("group.example.app")
/// try suite.set("dark", forKey: "theme")
/// let theme = try suite.get("theme", as: String.self)
/// ```
public final class Store: Sendable {
    /// The on-disk format this Concord writes; a store of a newer format is refused, an older one upgraded.
    public static let formatVersion: UInt32 = 9

    /// The directory of this replica.
    public let directory: String
    /// The options of the replica this handle opened: those of the first handle this process opened
    /// on the directory (a second handle with other options is refused, see ``init(path:options:)``).
    public var options: Options { core.options }
    package let core: ReplicaCore
    /// Where this store's async calls do their blocking work (see `StoreThread`).
    package let thread = StoreThread(name: "concord.store")

    /// This replica's identity, stamped at creation.
    public var replicaID: ReplicaID { core.replicaID }

    /// Opens the replica at `path`, creating it if it does not exist.
    ///
    /// ```swift
    /// let store = try Store(path: "/var/lib/myapp/settings")
    /// ```
    ///
    /// Options belong to the replica this process opens, not to a handle: every handle on one
    /// directory shares the first one's. A second handle that gives options must give the same ones
    /// (``Options/createIfMissing`` aside); one that gives none shares them.
    ///
    /// - Parameters:
    ///   - path: The replica's directory; created (mode 0700, files 0600) unless
    ///     `options.createIfMissing` is false.
    ///   - options: How to open it. Nil: as this process has it open already, or the defaults.
    /// - Throws: ``ConcordError`` `.insecure` when the directory is writable by others or holds a symlink,
    ///   `.damaged` when its files are not a sound store, `.newerFormat` when a newer Concord wrote
    ///   it, `.io` when it cannot be created or is missing (with `createIfMissing` false),
    ///   `.invalidArgument` when this process has it open with other options (the message names them).
    @inlinable
    public convenience init(path: String, options: Options? = nil) throws {
        // Inlined where it is called, so the optional is unwrapped there, never copied or destroyed
        // whole here: see `ReplicaCore.shared`.
        switch consume options {
        case .some(let options): try self.init(path: path, opening: options, given: true, create: options.createIfMissing)
        case .none: try self.init(path: path, opening: Options(), given: false, create: true)
        }
    }

    /// Opens the replica at `path` with `options` (nil: the replica's, as ``init(path:options:)``),
    /// creating it only when `create`.
    package convenience init(path: String, options: Options?, create: Bool) throws {
        switch consume options {
        case .some(let options): try self.init(path: path, opening: options, given: true, create: create)
        case .none: try self.init(path: path, opening: Options(), given: false, create: create)
        }
    }

    /// Opens the replica at `path`, with `options` when `given` (else as this process has it open,
    /// or the defaults), creating it only when `create`.
    @usableFromInline
    init(path: String, opening options: Options, given: Bool, create: Bool) throws {
        self.core = try ReplicaCore.shared(path: path, options: options, given: given, create: create)
        self.directory = core.path
    }

    /// The suite named `name` (1–128 bytes of letters, digits, `.`, `_`, `-`).
    ///
    /// ```swift
    /// let suite = try store.suite("group.example.app")
    /// ```
    ///
    /// - Parameter name: The suite's name; a suite exists once a key is written to it.
    /// - Returns: The suite (opening it reads nothing).
    /// - Throws: ``ConcordError`` `.invalidSuiteName`.
    public func suite(_ name: String) throws -> Suite {
        try Names.validateSuite(name)
        return Suite(name: name, store: self)
    }

    /// The names of the suites that hold at least one record (tombstones included), sorted.
    ///
    /// ```swift
    /// for name in try store.suiteNames() { print(name) }
    /// ```
    public func suiteNames() throws -> [String] {
        try core.read { txn in
            var names: [String] = []
            try txn.withCursor(core.layout.records) { cursor in
                var entry = try cursor.first()
                while let (key, _) = entry {
                    guard let (suite, _) = StoreLayout.splitRecordKey(key) else {
                        entry = try cursor.next()
                        continue
                    }
                    names.append(suite)
                    var next = Array(suite.utf8)
                    next.append(1) // the first key after every "suite\0…"
                    entry = try cursor.seek(atLeast: next)
                }
            }
            return names
        }
    }

    /// The changes committed after `seq`, oldest first, optionally of one suite (at most `limit`), read
    /// from the journal: what a program that was not running (or an observer that saw a gap in the
    /// seqs) catches up with. A key appears at most once, with its latest change: a later change of a
    /// key supersedes its earlier ones. Each is the ``Change`` an observer receives, its value as a
    /// read finds it now (nil for a deletion or a value that has expired).
    ///
    /// <!-- assume: var lastSeen: UInt64 = 0 -->
    /// ```swift
    /// for change in try store.changes(after: lastSeen) { print(change.seq, change.key, change.origin) }
    /// ```
    ///
    /// - Parameters:
    ///   - seq: The last seq already handled (0 for everything).
    ///   - suite: Only this suite's changes, or nil for every suite.
    ///   - limit: The most changes to return.
    /// - Returns: The changes, oldest first, each with its seq, key, value, version and origin.
    /// - Throws: ``ConcordError`` `.invalidSuiteName`, or ``ConcordError`` `.damaged` when an entry does not decode.
    public func changes(after seq: UInt64, suite: String? = nil, limit: Int = .max) throws -> [Change] {
        let now = options.clock.read()
        return try journalEntries(after: seq, suite: suite, limit: limit).map { entry in
            do {
                return try Change(
                    entry, origin: ChangeOrigin(entry.source),
                    registeredDefault: core.defaults.value(suite: entry.suite, key: entry.key), now: now)
            } catch {
                throw ConcordError.undecodableRecord(suite: entry.suite, key: entry.key, path: directory, error)
            }
        }
    }

    /// The journal entries after `seq`, oldest first, optionally of one suite (at most `limit`), each
    /// key's latest (what ``changes(after:suite:limit:)`` reads, with each entry's record).
    package func journalEntries(after seq: UInt64, suite: String? = nil, limit: Int = .max) throws -> [JournalEntry] {
        if let suite { try Names.validateSuite(suite) }
        return try core.journalEntries(after: seq, suite: suite, limit: limit)
    }

    /// The merge policies declared in this replica for keys and key prefixes of `suite` (or of every suite).
    ///
    /// ```swift
    /// for d in try store.policyDeclarations() { print(d.suite, d.key, d.isPrefix ? "prefix" : "key", d.policy) }
    /// ```
    package func policyDeclarations(suite: String? = nil) throws -> [PolicyDeclaration] {
        if let suite { try Names.validateSuite(suite) }
        return try core.snapshot { s in try s.policyDeclarations(suite: suite) }
    }

    /// The seq of the newest journal entry (0 for a new store).
    public func lastSeq() throws -> UInt64 { try core.snapshot { $0.lastSeq } }

    /// A number that changes whenever any process commits to this replica; reading it costs no transaction.
    package var commitStamp: Int { core.env.lastCommittedTransactionID }

    /// Runs `body` in one write transaction of the write core. Observers are woken after the commit.
    /// The closure may run more than once (after the map grew, or when another write sharing its group
    /// commit failed) and on another thread of this process (the one leading the commit), so it must
    /// act only through the transaction.
    @discardableResult
    package func write<R>(_ body: (ReplicaTransaction) throws -> R) throws -> R {
        try core.write(body)
    }

    /// Runs `body` in one read-only snapshot of the replica (writers are not blocked).
    package func read<R>(_ body: (ReplicaSnapshot) throws -> R) throws -> R {
        try core.snapshot(body)
    }
}

extension Store {
    /// How much a commit waits for the disk.
    public enum Durability: Sendable, Equatable {
        /// Every commit is on disk when it returns (data and meta page fsynced). The default.
        case full
        /// The meta page is not fsynced: a power loss may undo the last commits, never damage the store.
        case noMetaSync
        /// Nothing is fsynced: a power loss may undo recent commits (the OS still writes them out).
        case none
    }

    /// Settings for opening a store: the replica's, shared by every handle this process opens on
    /// its directory (see ``Store/init(path:options:)``).
    ///
    /// <!-- assume: let path = "/var/lib/myapp/settings" -->
    /// ```swift
    /// var options = Store.Options()
    /// options.durability = .noMetaSync
    /// let store = try Store(path: path, options: options)
    /// ```
    public struct Options: Sendable {
        /// The largest encoded value, in bytes. The default is 4 MiB.
        public var maxValueBytes = 4 << 20
        /// How much a commit waits for the disk. The default is `.full`: a write is on disk when it returns.
        public var durability: Durability = .full
        /// The initial size of the memory map; it grows by doubling when full. The default is 64 MiB.
        public var initialMapSize = 64 << 20
        /// How far ahead of the wall clock this replica's clock may be pushed by versions it meets
        /// (merged from peers, or of records it overwrites), counted in whole milliseconds. The default
        /// is five minutes.
        public var maxClockDrift: Duration = .seconds(5 * 60)
        /// ``maxClockDrift`` as the clock counts it.
        package var maxClockDriftMilliseconds: UInt64 { maxClockDrift.wholeMilliseconds }
        /// The wall clock: the time now since 1970-01-01 00:00:00 UTC, which versions are stamped with
        /// (in whole milliseconds, as the hybrid clock counts time; a time before 1970 reads as 1970).
        /// The default reads the system clock; tests replace it (ConcordTesting's `ManualClock`). Two
        /// options have the same clock when one is a copy of the other, or neither replaced it.
        ///
        /// ```swift
        /// var options = Store.Options()
        /// options.wallClock = { .seconds(1_800_000_000) }   // 2027-01-15 08:00:00 UTC, always
        /// ```
        public var wallClock: @Sendable () -> Duration {
            get { { [clock] in .milliseconds(clock.read()) } }
            set { clock = WallClock { newValue().wholeMilliseconds } }
        }
        /// The keys of encrypted suites this process reads and writes, by suite name (see
        /// ``Suite/encrypt(with:)``). Kept in memory only, never written to the replica; a handle
        /// opened later with more keys adds them for the whole process.
        ///
        /// ```swift
        /// var options = Store.Options()
        /// options.suiteKeys["secrets"] = try EncryptionKey(contentsOfFile: "/etc/myapp/secrets.key")
        /// ```
        public var suiteKeys: [String: EncryptionKey] = [:]
        /// Whether opening a directory that holds no store creates one. The default is true. It is
        /// how one open behaves, not the replica's: handles that differ only in it share a replica.
        public var createIfMissing = true
        /// The clock `wallClock` reads, with an identity two options can be compared by.
        package var clock = WallClock.system

        /// The default options.
        public init() {}

        /// The options of the replica (all but `createIfMissing`) that differ between these and
        /// `other`, each named with both values; empty when a handle with these may share a replica
        /// opened with `other`.
        package func differences(from other: Options) -> [String] {
            var out: [String] = []
            func compare<T: Equatable>(_ name: String, _ mine: T, _ theirs: T) {
                if mine != theirs { out.append("\(name) \(mine) (it has \(theirs))") }
            }
            compare("maxValueBytes", maxValueBytes, other.maxValueBytes)
            compare("durability", durability, other.durability)
            compare("initialMapSize", initialMapSize, other.initialMapSize)
            compare("maxClockDrift", maxClockDrift, other.maxClockDrift)
            if clock !== other.clock { out.append("another wallClock") }
            return out
        }
    }

    /// A wall clock with an identity: options copied from one another hold the same one. It reads
    /// milliseconds since 1970, as versions and expiries count them.
    package final class WallClock: Sendable {
        package let read: @Sendable () -> UInt64
        package init(_ read: @escaping @Sendable () -> UInt64) { self.read = read }
        /// The system clock, every default option's.
        package static let system = WallClock(HybridClock.wallMilliseconds)
    }
}
