/// How concurrent changes of one key merge when replicas sync.
///
/// `lww` (the default) keeps the last write. The others combine concurrent changes instead of
/// choosing one: a key's policy is declared once (``Suite/declare(_:forKey:)``, `Key(…, policy:)`,
/// `sync-tool policy`), is stored and synced like any other data, and every record says in its own
/// bytes how it merges, so a replica that never saw the declaration still merges it the same way.
///
/// ```swift
/// try suite.declare(.counter, forKey: "launchCount")
/// try suite.increment("launchCount")      // this replica's contribution; every replica's add up
/// ```
///
/// - `lww`: the greater version wins; a concurrent write that lost is kept in the conflict log.
/// - `counter`: an `Int`; every replica's increments (and decrements) add up, each counted once.
///   A `set` or removal replaces the value and takes back the increments its writer had seen.
/// - `max`, `min`: the value only moves one way (`Int`, `Double`, `String` or `Date`); a removal
///   clears it, and values proposed after the removal count again.
/// - `set`: an add-wins set of scalars; concurrent additions all survive, and a removal removes
///   the additions its writer had seen.
public enum MergePolicy: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Last writer wins: the greater version is kept; a concurrent write that lost goes to the conflict log.
    case lww
    /// An `Int` to which every replica's increments and decrements add up, each counted once.
    case counter
    /// The greatest value proposed since the last removal (`Int`, `Double`, `String` or `Date`).
    case max
    /// The least value proposed since the last removal (`Int`, `Double`, `String` or `Date`).
    case min
    /// An add-wins set of scalars, stored as an array: concurrent additions all survive.
    case set

    public var description: String { rawValue }

    /// The byte a policy record stores it as.
    package var code: UInt8 {
        switch self {
        case .lww: 0
        case .counter: 1
        case .max: 2
        case .min: 3
        case .set: 4
        }
    }

    package init?(code: UInt8) {
        guard let found = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = found
    }

    /// Whether an unknown `code` is plausibly a policy a newer Concord added (codes are handed out in
    /// order: one at most 8 past the newest known), rather than damage.
    package static func isPlausiblyNewer(code: UInt8) -> Bool {
        let newest = allCases.map(\.code).max() ?? 0
        return code > newest && code - newest <= 8
    }
}
