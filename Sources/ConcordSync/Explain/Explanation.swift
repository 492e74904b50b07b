import Foundation

/// Why a key reads as it does, in one answer (`Suite.explain(_:)`, `sync-tool why`): the value read
/// and the layer it came from, the stored record's version as a time and the replica that wrote it,
/// how that record arrived here, the merge policy and each replica's part of a counter or set, and
/// the concurrent writes the record beat (the conflict log's losers for the key, newest first).
///
/// ```swift
/// let why = try suite.explain("theme")
/// print(why.value ?? "nothing", "from", why.layer)                 // string "dark" from the stored record
/// print("written", why.written!, "by", why.writer!, why.arrival!)  // … by 3f2a… (Ada's laptop) sync from …
/// for beaten in why.beaten { print(beaten.number, beaten.value ?? "deleted", beaten.writer) }
/// try suite.restore("theme", conflict: 1)                           // writes the newest loser back
/// ```
public struct Explanation: Hashable, Sendable {
    /// The layer a read's value came from, in the order reads look.
    public enum Layer: Hashable, Sendable, CustomStringConvertible {
        /// A settings scope's own override (`depth` 0 is the scope asked); see `SettingsScope.explain(_:)`.
        case scopeOverride(depth: Int)
        /// A settings scope's argument layer (command-line arguments, `SettingsScope.override(_:text:)`).
        case argument
        /// The record stored in the suite.
        case stored
        /// A default registered in this process (`Suite.register(defaults:)`), never stored or synced.
        case registeredDefault
        /// A setting key's `defaultValue` (only `SettingsScope.explain(_:)` reports it).
        case settingDefault
        /// Nothing: no stored value (none, or a deletion) and no default.
        case nothing

        public var description: String {
            switch self {
            case .scopeOverride(let depth): "a scope's override (\(depth) up)"
            case .argument: "an argument"
            case .stored: "the stored record"
            case .registeredDefault: "a default registered in this process"
            case .settingDefault: "the setting's default value"
            case .nothing: "nothing"
            }
        }
    }

    /// How a record reached this replica.
    public enum Arrival: Hashable, Sendable, CustomStringConvertible {
        /// Written by this process.
        case thisProcess
        /// Written by another process with this replica open (another program, `sync-tool`, an extension).
        case otherProcess
        /// Merged by a sync from `peer` (any transport: a directory, a bundle, `serve`, the hub) `at`
        /// the time this replica committed the merge: its hybrid clock at that commit, which is the
        /// wall-clock time unless a peer's clock ran ahead of this replica's (then up to the drift
        /// bound, ``Store/Options/maxClockDriftMilliseconds``, later). Nil for a beaten write's origin, and for a
        /// record merged by a release whose journal did not keep the time (stores of format 3 and older).
        case sync(from: NamedReplica, at: Date?)

        public var description: String {
            switch self {
            case .thisProcess: "written by this process"
            case .otherProcess: "written by another process of this replica"
            case .sync(let peer, let at): "merged by a sync from \(peer)" + (at.map { " at \(Explanation.text($0))" } ?? "")
            }
        }
    }

    /// What one replica contributes to a counter, a set or a max/min key (or the base: the last
    /// whole-value write the other parts add to).
    public struct Part: Hashable, Sendable {
        /// The replica that contributed it (for the base, the replica that wrote it).
        public let replica: NamedReplica
        /// Whether this is the base (a set, a removal, or the value carried over when the policy changed).
        public let isBase: Bool
        /// A counter's increments (an `Int`), a set's members this replica added (an array), a max or
        /// min proposal, or the base's value (nil for a removal).
        public let value: Value?
        /// When the replica made its latest contribution (the base: when it was written).
        public let time: Date
    }

    /// A concurrent write the stored record beat in a merge, from the conflict log.
    public struct BeatenWrite: Hashable, Sendable {
        /// Its number, 1 for the newest: what `Suite.restore(_:conflict:)` and `sync-tool restore --conflict` take.
        public let number: Int
        /// The losing value; nil when the losing write was a deletion.
        public let value: Value?
        /// The losing write's version.
        public let version: Version
        /// When it was written (its version's time).
        public let written: Date
        /// The replica that wrote it.
        public let writer: NamedReplica
        /// How it had reached this replica (for a sync, without a time).
        public let origin: Arrival
        /// The version that beat it.
        public let beatenBy: Version
        /// When the conflict was found (wall clock).
        public let detected: Date
    }

    /// The suite asked.
    public let suite: String
    /// The key asked.
    public let key: String
    /// What a read returns now (nil: nothing).
    public let value: Value?
    /// Where `value` came from.
    public let layer: Layer
    /// The stored record (tombstones included), whichever layer answered.
    public let record: Record?
    /// When the stored record was written: its version's time.
    public let written: Date?
    /// The replica that wrote the stored record.
    public let writer: NamedReplica?
    /// How the stored record arrived here.
    public let arrival: Arrival?
    /// Whether the stored record's value has expired, so it reads as absent (`record?.expires` says when).
    public let expired: Bool
    /// Whether the key is declared device-local (`Suite.setDeviceLocal`): its records never leave this replica.
    public let isDeviceLocal: Bool
    /// The merge policy a write of the key follows now (its declaration, else its record's, else lww).
    public let policy: MergePolicy
    /// Each replica's part of a counter, set, max or min key (empty for lww), base first.
    public let parts: [Part]
    /// The writes the key's records beat, newest first (the conflict log; `Store.clearConflicts` empties it).
    public let beaten: [BeatenWrite]

    /// The same explanation with another value and layer (a settings scope's override answered).
    package func answered(by layer: Layer, value: Value?) -> Explanation {
        Explanation(
            suite: suite, key: key, value: value, layer: layer, record: record, written: written, writer: writer, arrival: arrival,
            expired: expired, isDeviceLocal: isDeviceLocal, policy: policy, parts: parts, beaten: beaten)
    }

    package init(
        suite: String, key: String, value: Value?, layer: Layer, record: Record?, written: Date?, writer: NamedReplica?,
        arrival: Arrival?, expired: Bool = false, isDeviceLocal: Bool = false, policy: MergePolicy, parts: [Part], beaten: [BeatenWrite]
    ) {
        self.expired = expired
        self.isDeviceLocal = isDeviceLocal
        self.suite = suite
        self.key = key
        self.value = value
        self.layer = layer
        self.record = record
        self.written = written
        self.writer = writer
        self.arrival = arrival
        self.policy = policy
        self.parts = parts
        self.beaten = beaten
    }

    /// A time as reports print it: ISO 8601 with milliseconds, UTC.
    package static func text(_ date: Date) -> String { JSONValue.formatDate(date) }

    /// A version's time.
    package static func date(_ version: Version) -> Date { date(milliseconds: version.milliseconds) }

    package static func date(milliseconds: UInt64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
