/// Where a change came from, the analog of `NSUbiquitousKeyValueStore`'s change reasons.
public enum ChangeOrigin: Hashable, Sendable, CustomStringConvertible {
    /// Written by this process.
    case thisProcess
    /// Written by another process that has the same replica open.
    case otherProcess
    /// Merged by a sync from the named peer replica.
    case sync(peer: ReplicaID)

    public var description: String {
        switch self {
        case .thisProcess: "this-process"
        case .otherProcess: "other-process"
        case .sync(let peer): "sync:\(peer)"
        }
    }
}

/// One committed change, as observers receive it.
///
/// ```swift
/// for await change in suite.changes(for: "theme") {
///     print(change.key, change.effectiveValue ?? "none", change.origin)
/// }
/// ```
public struct Change: Hashable, Sendable {
    /// The change's position in the replica's journal.
    public let seq: UInt64
    public let suite: String
    public let key: String
    /// The new stored value, or `nil` when the key was deleted (or its suite reset).
    public let value: Value?
    public let version: Version
    public let origin: ChangeOrigin
    /// The value registered as this key's default in this process, if any.
    public let registeredDefault: Value?

    /// What a read of the key now returns: the stored value, or the registered default after a delete.
    public var effectiveValue: Value? { value ?? registeredDefault }
    public var isDeletion: Bool { value == nil }
}
