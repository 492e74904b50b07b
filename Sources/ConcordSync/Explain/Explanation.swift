import Foundation

/// Why a key reads as it does, in one answer (``Suite/explain(_:)``, `sync-tool why`): the value read
/// and the layer it came from, the stored record's version as a time and the replica that wrote it
/// (with the name it gave itself), how that record arrived here, the merge policy, and the
/// concurrent writes the record beat (the conflict log's entries for the key, newest loser first).
///
/// ```swift
/// let why = try suite.explain("theme")
/// print(why.value ?? "nothing", "from", why.layer)                  // string "dark" from the stored record
/// print("written", why.written!, "by", why.writerName ?? "unnamed", why.origin!)  // … by Ada's laptop sync:3f2a…
/// for (i, beaten) in why.conflicts.enumerated() { print(i + 1, try beaten.loser.value() ?? "deleted", beaten.loserOrigin) }
/// try suite.restore("theme", conflict: 1)                            // writes the newest loser back
/// ```
public struct Explanation: Hashable, Sendable {
    /// The layer a read's value came from, in the order reads look.
    public enum Layer: Hashable, Sendable, CustomStringConvertible {
        /// A settings scope's own override (`depth` 0 is the scope asked); see ``SettingsScope/explain(_:)``.
        case scopeOverride(depth: Int)
        /// A settings scope's argument layer (command-line arguments, ``SettingsScope/override(_:text:)``).
        case argument
        /// The record stored in the suite.
        case stored
        /// A default registered in this process (``Suite/register(defaults:)``), never stored or synced.
        case registeredDefault
        /// A setting key's `defaultValue` (only ``SettingsScope/explain(_:)`` reports it).
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

    /// How a record reached this replica, with the peer's name and when a sync merged it (what
    /// ``Explanation/origin`` and ``Explanation/mergedAt`` say, for the command-line tool).
    package enum Arrival: Hashable, Sendable, CustomStringConvertible {
        /// Written by this process.
        case thisProcess
        /// Written by another process with this replica open (another program, `sync-tool`, an extension).
        case otherProcess
        /// Merged by a sync from `peer` (any transport: a directory, a bundle, `serve`, the hub) `at`
        /// the time this replica committed the merge: its hybrid clock at that commit, which is the
        /// wall-clock time unless a peer's clock ran ahead of this replica's (then up to the drift
        /// bound, ``Store/Options/maxClockDrift``, later). Nil for a beaten write's origin, and for a
        /// record merged by a release whose journal did not keep the time (stores of format 3 and older).
        case sync(from: NamedReplica, at: Date?)

        package var description: String {
            switch self {
            case .thisProcess: "written by this process"
            case .otherProcess: "written by another process of this replica"
            case .sync(let peer, let at): "merged by a sync from \(peer)" + (at.map { " at \(Explanation.text($0))" } ?? "")
            }
        }
    }

    /// What one replica contributes to a counter, a set or a max/min key (or the base: the last
    /// whole-value write the other parts add to).
    package struct Part: Hashable, Sendable {
        /// The replica that contributed it (for the base, the replica that wrote it).
        package let replica: NamedReplica
        /// Whether this is the base (a set, a removal, or the value carried over when the policy changed).
        package let isBase: Bool
        /// A counter's increments (an `Int`), a set's members this replica added (an array), a max or
        /// min proposal, or the base's value (nil for a removal).
        package let value: Value?
        /// When the replica made its latest contribution (the base: when it was written).
        package let time: Date
    }

    /// A concurrent write the stored record beat in a merge, from the conflict log.
    package struct BeatenWrite: Hashable, Sendable {
        /// Its number, 1 for the newest: what ``Suite/restore(_:conflict:)-1buax`` and `sync-tool restore --conflict` take.
        package let number: Int
        /// The losing value; nil when the losing write was a deletion.
        package let value: Value?
        /// The losing write's version.
        package let version: Version
        /// When it was written (its version's time).
        package let written: Date
        /// The replica that wrote it.
        package let writer: NamedReplica
        /// How it had reached this replica (for a sync, without a time).
        package let origin: Arrival
        /// The version that beat it.
        package let beatenBy: Version
        /// When the conflict was found (wall clock).
        package let detected: Date
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
    /// The replica that wrote the stored record, with its name.
    package let writer: NamedReplica?
    /// How the stored record arrived here, with the peer's name and the time of the merge.
    package let arrival: Arrival?
    /// Whether the stored record's value has expired, so it reads as absent (`record?.expires` says when).
    public let expired: Bool
    /// Whether the key is declared device-local (``Suite/setDeviceLocal(_:forKey:)``): its records never leave this replica.
    public let isDeviceLocal: Bool
    /// The merge policy a write of the key follows now (its declaration, else its record's, else lww).
    public let policy: MergePolicy
    /// Each replica's part of a counter, set, max or min key (empty for lww), base first.
    package let parts: [Part]
    /// The writes the key's records beat, newest first, numbered and with their writers' names.
    package let beaten: [BeatenWrite]
    /// The writes the key's records beat: the conflict log's entries for the key, newest loser first
    /// (``Suite/restore(_:conflict:)-1buax`` takes a position here, 1 for the first;
    /// ``Store/clearConflicts(suite:)`` empties the log).
    public let conflicts: [Conflict]

    /// What each replica contributes to a counter, set, max or min key beyond the base (the last
    /// whole-value write they add to): a counter's increments (an `Int`), a set's members it added (an
    /// array), a max or min proposal. Empty for lww.
    public var contributions: [ReplicaID: Value] {
        Dictionary(parts.compactMap { part in part.isBase ? nil : part.value.map { (part.replica.id, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The name the stored record's writer gave itself (``Store/setName(_:)-5yr2m``), when that name
    /// has reached this replica.
    public var writerName: String? { writer?.name }

    /// How the stored record arrived here: written by this process, by another process of this
    /// replica, or merged by a sync from a peer.
    public var origin: ChangeOrigin? {
        switch arrival {
        case nil: nil
        case .thisProcess: .thisProcess
        case .otherProcess: .otherProcess
        case .sync(let peer, _): .sync(peer: peer.id)
        }
    }

    /// When a sync merged the stored record here: this replica's hybrid clock at that commit, which is
    /// the wall-clock time unless a peer's clock ran ahead (then up to ``Store/Options/maxClockDrift``
    /// later). Nil for a record written here, and for one merged by a release whose journal did not
    /// keep the time (stores of format 3 and older).
    public var mergedAt: Date? {
        if case .sync(_, let at) = arrival { return at }
        return nil
    }

    /// The same explanation with another value and layer (a settings scope's override answered).
    package func answered(by layer: Layer, value: Value?) -> Explanation {
        Explanation(
            suite: suite, key: key, value: value, layer: layer, record: record, written: written, writer: writer, arrival: arrival,
            expired: expired, isDeviceLocal: isDeviceLocal, policy: policy, parts: parts, beaten: beaten, conflicts: conflicts)
    }

    package init(
        suite: String, key: String, value: Value?, layer: Layer, record: Record?, written: Date?, writer: NamedReplica?,
        arrival: Arrival?, expired: Bool = false, isDeviceLocal: Bool = false, policy: MergePolicy, parts: [Part], beaten: [BeatenWrite],
        conflicts: [Conflict]
    ) {
        self.conflicts = conflicts
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
