/// One optional choice under one key that says which of several things is current — the analog
/// of SwiftUI's `@FocusState` with an enum (one value, not several `Bool`s that drift apart),
/// shared by every process that has the replica open.
///
/// Across processes it is a lease: `claim(_:ifCurrent:)` is a compare-and-set inside one write
/// transaction, so when several processes race for it, exactly one succeeds.
///
/// ```swift
/// enum Pane: String, StorableValue { case editor, sidebar, search }
///
/// let focus = ExclusiveChoice<Pane>("focus", in: suite)
/// if try focus.claim(.editor, ifCurrent: nil).succeeded {
///     defer { _ = try? focus.release(.editor) }
///     edit()
/// }
/// for try await change in focus.changes { print("focus moved to", change.value as Any) }
/// ```
///
/// `nil` means nothing is chosen. Registered defaults are ignored (they are per process, so
/// processes would disagree about who holds the choice). A choice is held until it is released
/// or moved: it does not expire when the process that claimed it exits.
public struct ExclusiveChoice<Choice: StorableValue & Hashable>: Sendable {
    /// The shared per-key reference holding the choice.
    public let reference: StoredReference<Choice?>

    /// A choice under `key` of `suite`.
    ///
    /// ```swift
    /// let focus = ExclusiveChoice<Pane>("focus", in: suite)
    /// ```
    public init(_ key: String, in suite: Suite) {
        reference = .shared(suite: suite, key: key)
    }

    /// What is chosen now, or `nil`. A stored value of another type reads as `nil` and is reported.
    public var current: Choice? {
        if case .stored(let choice) = reference.lookup() { return choice }
        return nil
    }

    /// Makes `choice` current if the current choice is `expected` (`nil`: nothing chosen),
    /// atomically across processes. Nothing is written when it is refused, or when `choice`
    /// is already current.
    ///
    /// - Returns: `.claimed`, or `.refused(current:)` with what was current instead.
    /// - Throws: `WrapperError` when the store cannot be read or written.
    @discardableResult
    public func claim(_ choice: Choice, ifCurrent expected: Choice?) throws -> ClaimResult<Choice> {
        try reference.transact(.write) { stored in
            let current = try stored.map { try Choice(storedValue: $0) }
            guard current == expected else { return (.keep, .refused(current: current)) }
            guard current != choice, let encoded = try choice.storedValue() else { return (.keep, .claimed) }
            return (.set(encoded), .claimed)
        }
    }

    /// Makes `choice` current (or clears it with `nil`) whatever was current.
    public func select(_ choice: Choice?) throws {
        try reference.set(choice)
    }

    /// Clears the choice if `choice` is current; returns whether it was.
    @discardableResult
    public func release(_ choice: Choice) throws -> Bool {
        try reference.transact(.remove) { stored in
            guard try stored.map({ try Choice(storedValue: $0) }) == choice else { return (.keep, false) }
            return (.remove, true)
        }
    }

    /// Every move of the choice from the moment iteration starts (`value` is the new choice;
    /// moves in quick succession may arrive as one change with the latest choice).
    public var changes: StoredChanges<Choice?> {
        StoredChanges(reference: reference, defaultValue: nil, registeredDefaults: false)
    }

    /// Calls `handler` with the new choice after every move, until the token is cancelled or released.
    public func observe(_ handler: @escaping @Sendable (Choice?) -> Void) throws -> ObservationToken {
        try reference.suite.observe(reference.key) { change in
            handler(StoredChange<Choice?>(change, default: nil, registeredDefaults: false).value)
        }
    }
}
