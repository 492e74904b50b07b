/// Where a change came from, the analog of `NSUbiquitousKeyValueStore`'s change reasons.
///
/// <!-- assume: let change: Change = given() -->
/// ```swift
/// if case .sync(let peer) = change.origin { print("arrived from", peer) }
/// ```
public enum ChangeOrigin: Hashable, Sendable, CustomStringConvertible {
    /// Written by this process.
    case thisProcess
    /// Written by another process that has the same replica open.
    case otherProcess
    /// Merged by a sync from the named peer replica.
    case sync(peer: ReplicaID)
    /// Nobody wrote it: the key's value expired (``Suite/set(_:forKey:expiresAt:)-3f0x``). Such a change
    /// commits nothing, so its `seq` is that of the record that expired.
    case expired

    /// Who made a change the journal (or the conflict log) holds as made by `source`: a process's
    /// token is this process's or another's.
    package init(_ source: ChangeSource) {
        switch source {
        case .process(let token): self = token == ReplicaCore.processToken ? .thisProcess : .otherProcess
        case .sync(let peer): self = .sync(peer: peer)
        }
    }

    public var description: String {
        switch self {
        case .thisProcess: "this-process"
        case .otherProcess: "other-process"
        case .sync(let peer): "sync:\(peer)"
        case .expired: "expired"
        }
    }
}

/// One committed change, as observers receive it.
///
/// ```swift
/// for try await change in suite.changes(for: "theme") {
///     print(change.key, change.effectiveValue ?? "none", change.origin)
/// }
/// ```
public struct Change: Hashable, Sendable {
    /// The change's position in the replica's journal.
    public let seq: UInt64
    /// The suite of the changed key.
    public let suite: String
    /// The changed key.
    public let key: String
    /// The new stored value, or `nil` when the key was deleted (or its suite reset), or its value has
    /// expired (already when the change was delivered, or at its expiry: origin `.expired`).
    public let value: Value?
    /// The version of the record the change stored.
    public let version: Version
    /// Who made the change.
    public let origin: ChangeOrigin
    /// The value registered as this key's default in this process, if any.
    public let registeredDefault: Value?

    /// What a read of the key now returns: the stored value, or the registered default after a delete.
    public var effectiveValue: Value? { value ?? registeredDefault }
    /// Whether the change deleted the key.
    public var isDeletion: Bool { value == nil }

    /// The change `entry` made, as a read at `now` (milliseconds since 1970) finds it.
    init(_ entry: JournalEntry, origin: ChangeOrigin, registeredDefault: Value?, now: UInt64) throws(ValueDecodingError) {
        seq = entry.seq
        suite = entry.suite
        key = entry.key
        value = try entry.record.value(at: now)
        version = entry.record.version
        self.origin = origin
        self.registeredDefault = registeredDefault
    }
}
