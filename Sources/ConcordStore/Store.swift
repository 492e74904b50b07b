import Foundation
import LMDB
import Synchronization

/// A replica: one directory holding named suites of typed, versioned values,
/// safe for many threads and many processes at once.
///
/// ```swift
/// let store = try Store(directory: URL(filePath: "/var/lib/myapp/settings"))
/// let suite = try store.suite("group.example.app")
/// try suite.set("dark", forKey: "theme")
/// let theme = try suite.get("theme", as: String.self)
/// ```
public final class Store: Sendable {
    /// The current on-disk format; a store with a greater one is refused.
    public static let formatVersion: UInt32 = 1

    /// Settings for opening a store. Those that shape the LMDB environment apply when this
    /// process first opens the directory.
    public struct Options: Sendable {
        /// Largest encoded value, in bytes (default 4 MiB).
        public var maxValueBytes = 4 << 20
        /// `.full` (default): a write is on disk when it returns. `.noMetaSync`: a power loss may undo
        /// the last commits, never damage the store. `.none`: a power loss may undo recent commits.
        public var durability: Environment.Durability = .full
        /// Initial memory-map size; the map grows by doubling when full.
        public var initialMapSize = 64 << 20
        /// How far ahead of the wall clock a merged remote version may push this replica's clock.
        public var maxClockDriftMilliseconds: UInt64 = 5 * 60 * 1000
        /// How many undelivered changes an `AsyncSequence` of changes buffers before dropping the oldest.
        public var observerBufferLimit = 4096
        /// The wall clock in milliseconds since 1970 (replace it in tests).
        public var wallClock: @Sendable () -> UInt64 = HybridClock.wallMilliseconds
        /// When false, opening a directory that holds no store fails instead of creating one.
        public var createIfMissing = true
        public init() {}
    }

    /// The directory of this replica.
    public let directory: String
    public let options: Options
    let core: ReplicaCore

    /// This replica's identity, stamped at creation.
    public var replicaID: ReplicaID { core.replicaID }

    /// Opens the replica at `directory`, creating it (mode 0700, files 0600) if it does not exist.
    public convenience init(directory: URL, options: Options = Options()) throws {
        try self.init(path: directory.path, options: options)
    }

    /// Opens the replica at `path`, creating it if it does not exist.
    public init(path: String, options: Options = Options()) throws {
        self.options = options
        self.core = try ReplicaCore.shared(path: path, options: options)
        self.directory = core.path
    }

    /// The suite named `name` (1–128 bytes of letters, digits, `.`, `_`, `-`).
    public func suite(_ name: String) throws -> Suite {
        try Names.validateSuite(name)
        return Suite(name: name, store: self)
    }

    /// The names of the suites that hold at least one record (tombstones included), sorted.
    public func suiteNames() throws -> [String] {
        try core.read { txn in
            var names: [String] = []
            try txn.withCursor(core.layout.records) { cursor in
                var entry = try cursor.first()
                while let (key, _) = entry {
                    guard let (suite, _) = StoreLayout.splitRecordKey(key) else { entry = try cursor.next(); continue }
                    names.append(suite)
                    var next = Array(suite.utf8)
                    next.append(1)   // the first key after every "suite\0…"
                    entry = try cursor.seek(atLeast: next)
                }
            }
            return names
        }
    }

    /// Journal entries after `seq`, oldest first, optionally of one suite (at most `limit`).
    /// Superseded entries are compacted away, so each key appears at most once.
    public func changes(since seq: UInt64, suite: String? = nil, limit: Int = .max) throws -> [JournalEntry] {
        try core.journalEntries(since: seq, suite: suite, limit: limit)
    }

    /// The seq of the newest journal entry.
    public func lastSeq() throws -> UInt64 { try core.read { txn in try ReplicaState.load(txn, core.layout).seq } }

    /// A number that changes whenever any process commits to this replica; reading it costs no transaction.
    public var commitStamp: Int { core.env.lastCommittedTransactionID }

    /// Runs `body` in one write transaction with direct access to records (used by sync).
    /// Observers are woken after the commit. The closure may run more than once.
    @discardableResult
    public func write<R>(_ body: (ReplicaWriter) throws -> R) throws -> R {
        try core.write(body)
    }
}

/// What one process shares for one replica directory: the environment, layout,
/// identity, registered defaults and the change hub.
final class ReplicaCore: Sendable {
    let path: String
    let env: Environment
    let layout: StoreLayout
    let replicaID: ReplicaID
    let formatVersion: UInt32
    let options: Store.Options
    let signal: ChangeSignal
    let defaults = DefaultsRegistry()
    let hub: ChangeHub

    /// A random identity of this process, stored in the journal entries it writes.
    static let processToken: [UInt8] = {
        var random = SystemRandomNumberGenerator()   // two 8-byte draws, not sixteen 1-byte ones (each is a syscall)
        return withUnsafeBytes(of: (random.next(), random.next())) { Array($0) }
    }()

    private struct WeakCore { weak var core: ReplicaCore? }
    private static let registry = Mutex<[String: WeakCore]>([:])

    static func shared(path: String, options: Store.Options) throws -> ReplicaCore {
        let directory = try StoreDirectory.prepare(path, create: options.createIfMissing)
        return try registry.withLock { table in
            if let core = table[directory]?.core, core.env.isUsableInThisProcess { return core }
            let core = try ReplicaCore(path: directory, options: options)
            table[directory] = WeakCore(core: core)
            return core
        }
    }

    private init(path: String, options: Store.Options) throws {
        self.path = path
        self.options = options
        var envOptions = Environment.Options()
        envOptions.mapSize = options.initialMapSize
        envOptions.durability = options.durability
        let env = try mapLMDBErrors(path: path) { try Environment.open(directory: path, options: envOptions) }
        self.env = env
        let (layout, replica, format) = try mapLMDBErrors(path: path) { () throws -> (StoreLayout, ReplicaID, UInt32) in
            // The identity first: a store of a newer format is refused before anything could be created in it.
            let meta = try env.database(named: "meta")
            let (replica, format) = try Self.stampIdentity(env: env, meta: meta, path: path)
            let dbs = try env.databases(named: ["records", "journal", "peers", "conflicts"])
            let layout = StoreLayout(meta: meta, records: dbs[0], journal: dbs[1], peers: dbs[2], conflicts: dbs[3])
            return (layout, replica, format)
        }
        self.layout = layout
        self.replicaID = replica
        self.formatVersion = format
        self.signal = try ChangeSignal(directory: path)
        let token = Self.processToken
        let defaults = self.defaults
        let box = WeakBox()
        self.hub = ChangeHub(
            notifyPath: signal.path,
            readJournal: { since in try box.core?.journalEntries(since: since, suite: nil, limit: ChangeHub.pageSize) ?? [] },
            currentSeq: { try box.core?.read { txn in try ReplicaState.load(txn, layout).seq } ?? 0 },
            makeChange: { entry in
                let origin: ChangeOrigin
                switch entry.source {
                case .process(let t): origin = t == token ? .thisProcess : .otherProcess
                case .sync(let peer): origin = .sync(peer: peer)
                }
                return Change(seq: entry.seq, suite: entry.suite, key: entry.key,
                              value: try? entry.record.value(), version: entry.record.version, origin: origin,
                              registeredDefault: defaults.value(suite: entry.suite, key: entry.key))
            })
        box.core = self
    }

    /// Reads the format and replica id, stamping them on a new store. Refuses newer formats without writing.
    private static func stampIdentity(env: Environment, meta: Database, path: String) throws -> (ReplicaID, UInt32) {
        func read(_ txn: Transaction) throws -> (ReplicaID, UInt32)? {
            guard let formatBytes = try txn.get(meta, StoreLayout.formatKey) else { return nil }
            guard formatBytes.count == 4 else { throw StoreError.damaged(path: path, reason: "the format version is \(formatBytes.count) bytes, not 4") }
            let format = formatBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard format <= Store.formatVersion else { throw StoreError.newerFormat(path: path, found: format, supported: Store.formatVersion) }
            guard format >= 1 else { throw StoreError.damaged(path: path, reason: "format version 0") }
            guard let idBytes = try txn.get(meta, StoreLayout.replicaKey), let id = ReplicaID(bytes: idBytes) else {
                throw StoreError.damaged(path: path, reason: "the replica id is missing")
            }
            return (id, format)
        }
        if let found = try env.read(read) { return found }
        return try env.write { txn in
            if let found = try read(txn) { return found }   // another process created it first
            let id = ReplicaID.random()
            let v = Store.formatVersion
            try txn.put(meta, StoreLayout.formatKey, [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)])
            try txn.put(meta, StoreLayout.replicaKey, id.bytes)
            var created: [UInt8] = []
            ValueCodec.appendUInt64(HybridClock.wallMilliseconds(), to: &created)
            try txn.put(meta, StoreLayout.createdKey, created)
            return (id, v)
        }
    }

    func read<R>(_ body: (Transaction) throws -> R) throws -> R {
        try mapLMDBErrors(path: path) { try env.read(body) }
    }

    @discardableResult
    func write<R>(_ body: (ReplicaWriter) throws -> R) throws -> R {
        let (result, changed) = try mapLMDBErrors(path: path) {
            try env.write { txn -> (R, Bool) in
                let writer = try ReplicaWriter(txn: txn, layout: layout, replica: replicaID,
                                               localSource: .process(token: Self.processToken),
                                               nowMilliseconds: options.wallClock())
                let result = try body(writer)
                try writer.finish()
                return (result, writer.changeCount > 0)
            }
        }
        if changed {
            signal.touch()
            hub.wake()
        }
        return result
    }

    func journalEntries(since seq: UInt64, suite: String?, limit: Int) throws -> [JournalEntry] {
        try read { txn in
            var out: [JournalEntry] = []
            try RowAccess.scanJournal(txn, layout, path: path, after: seq) { entry in
                if suite == nil || entry.suite == suite { out.append(entry) }
                return out.count < limit
            }
            return out
        }
    }
}

/// Lets the hub's closures reach the core without keeping it alive.
private final class WeakBox: @unchecked Sendable {
    weak var core: ReplicaCore?
}

extension Store {
    /// Runs `body` while holding a read transaction open (for tests of stale readers).
    public func holdReadTransactionForTesting(_ body: () throws -> Void) throws {
        try core.read { _ in try body() }
    }
}
