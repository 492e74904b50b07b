import Foundation

/// One optional choice under one key that says which of several things is current — the analog
/// of SwiftUI's `@FocusState` with an enum (one value, not several `Bool`s that drift apart),
/// shared by every process that has the replica open. Use it as a property wrapper, or as a value.
///
/// ```swift
/// enum Field: String, StorableValue { case email, password }
///
/// struct LoginForm {
///     @Exclusive("login.focus", in: suite) var focused: Field?
/// }
///
/// let form = LoginForm()
/// form.focused = .password                              // move the choice
/// try form.$focused.claim(.email, ifCurrent: nil)       // compare-and-set, atomic across processes
/// ```
///
/// Setting the property moves the choice unconditionally (held by this process); a failed write
/// changes nothing and goes to the unhandled-error handler (``ConcordError/setUnhandledErrorHandler(_:)``). `$name` is the `Exclusive` itself, with
/// ``claim(_:ifCurrent:)``, ``renew()``, ``release(_:)``, ``changes`` and ``observeLoss(_:)``.
///
/// A choice is held under a ``Lease``: ``claim(_:ifCurrent:)`` is a compare-and-set inside one write
/// transaction that records the claiming process (its replica, a random token, its pid and start
/// time) and, with a `lease` duration, when it expires. A holder that does not ``renew()`` in time, or
/// whose process is gone, no longer counts: the choice reads as `nil` and the next claim succeeds.
/// ``observeLoss(_:)`` tells a holder when it lost the choice (taken, released, expired, or replaced by a sync).
///
/// ```swift
/// enum Pane: String, StorableValue { case editor, sidebar, search }
///
/// let focus = Exclusive<Pane>("focus", in: suite, lease: .seconds(30))
/// if try focus.claim(.editor, ifCurrent: nil) != nil {
///     let watch = try focus.observeLoss { lease in stopEditing(lease.choice) }
///     defer { _ = try? focus.release(.editor); watch.cancel() }
///     edit()                        // call focus.renew() more often than every 30 s
/// }
/// ```
///
/// What is exclusive: among the processes of one replica, at most one live holder at a time —
/// a claim only succeeds over no choice, an expired lease, a holder whose process is gone (checked
/// on this machine), or the choice named in `ifCurrent`. Across replicas the choice is a
/// last-writer-wins value like any other: two replicas apart may each grant it; when they sync,
/// the later claim holds it everywhere and the other holder's loss observer is told. Expiry is
/// judged by each replica's wall clock. Registered defaults are ignored (they are per process).
@propertyWrapper
public struct Exclusive<Choice: StorableValue & Hashable>: StoreProperty {
    /// The shared per-key reference holding the lease.
    let reference: StoredReference<Lease<Choice>?>
    /// How long a claim holds without a renewal (nil: until released or moved; a dead holder still loses it).
    public let leaseDuration: Duration?

    /// A choice under `key` of `suite`; with `lease`, a claim holds for that long unless renewed.
    ///
    /// <!-- assume: enum Field: String, StorableValue { case email, password } -->
    /// ```swift
    /// let focus = Exclusive<Pane>("focus", in: suite, lease: .seconds(30))
    /// @Exclusive("login.focus", in: suite) var focused: Field?
    /// ```
    public init(_ key: String, in suite: Suite, lease: Duration? = nil) {
        reference = .shared(suite: suite, key: key)
        leaseDuration = lease
    }

    /// What is chosen now (``current``); setting moves the choice (``select(_:)``).
    public var wrappedValue: Choice? {
        get { current }
        nonmutating set {
            do { try select(newValue) } catch { reference.reportUnthrown(error) }
        }
    }

    /// The choice itself, with ``claim(_:ifCurrent:)``, ``renew()``, ``release(_:)``, ``changes``
    /// and ``observeLoss(_:)``.
    public var projectedValue: Exclusive<Choice> { self }

    private var suite: Suite { reference.suite }
    private var now: UInt64 { suite.store.options.clock.read() }

    /// What is chosen now, or `nil` (nothing, an expired lease, a holder that is gone). A stored
    /// value of another type reads as `nil`.
    public var current: Choice? {
        guard case .stored(let lease?) = reference.lookup(), lease.isLive(now: now, in: suite.store.replicaID) else { return nil }
        return lease.choice
    }

    /// The lease that holds the choice now (with the version that granted it), or nil.
    public var currentLease: Lease<Choice>? {
        guard let record = try? suite.record(forKey: reference.key), let value = try? record.value(),
            var lease = try? Lease<Choice>(storedValue: value), lease.isLive(now: now, in: suite.store.replicaID)
        else { return nil }
        lease.version = record.version
        return lease
    }

    /// Makes `choice` current, held by this process, if the current choice is `expected` (`nil`:
    /// nothing chosen, or a lease that no longer counts), atomically across processes. Nothing is
    /// written when it is refused, or when this process already holds `choice` with no expiry.
    ///
    /// ```swift
    /// if let lease = try focus.claim(.editor, ifCurrent: nil) { startEditing(until: lease.expires) }
    /// ```
    ///
    /// - Parameters:
    ///   - choice: The choice to make current.
    ///   - expected: What must be current for the claim to succeed (`nil`: nothing).
    /// - Returns: The lease this process holds now, or nil when the claim was refused (``current``
    ///   tells what is chosen instead).
    /// - Throws: ``ConcordError`` when the store cannot be read or written, or holds another type.
    @discardableResult
    public func claim(_ choice: Choice, ifCurrent expected: Choice?) throws -> Lease<Choice>? {
        try attemptClaim(choice, ifCurrent: expected).lease
    }

    /// ``claim(_:ifCurrent:)``, telling a refusal's current choice as the write transaction saw it.
    package func attemptClaim(_ choice: Choice, ifCurrent expected: Choice?) throws -> ClaimResult<Choice> {
        let written = try write { k, held -> (KeyWrite, ClaimResult<Choice>) in
            guard held?.choice == expected else { return (.keep, .refused(current: held?.choice)) }
            if let held, held.choice == choice, held.isHeldByThisProcess, leaseDuration == nil, held.expiresMilliseconds == nil {
                return (.keep, .claimed(held))
            }
            let (lease, write) = try grant(choice, in: k)
            return (write, .claimed(lease))
        }
        guard case .claimed(var lease) = written.result else { return written.result }
        if let version = written.version { lease.version = version }
        LeaseLossWatch.granted(lease, by: self)
        return .claimed(lease)
    }

    /// Extends this process's lease by the lease duration.
    ///
    /// ```swift
    /// if try focus.renew() == nil { stopEditing() }   // lost it meanwhile
    /// ```
    ///
    /// - Returns: The renewed lease, or nil when this process no longer holds the choice (it expired,
    ///   was taken, or released): it lost it.
    /// - Throws: ``ConcordError`` when the store cannot be read or written.
    @discardableResult
    public func renew() throws -> Lease<Choice>? {
        let written = try write { k, held -> (KeyWrite, Lease<Choice>?) in
            guard let held, held.isHeldByThisProcess else { return (.keep, nil) }
            let (lease, write) = try grant(held.choice, in: k)
            return (write, lease)
        }
        guard var renewed = written.result else { return nil }
        renewed.version = written.version
        LeaseLossWatch.granted(renewed, by: self)
        return renewed
    }

    /// Makes `choice` current, held by this process, whatever was current (`nil` clears it) — what
    /// setting the property does, throwing its error.
    ///
    /// ```swift
    /// try focus.select(.sidebar)
    /// ```
    ///
    /// - Parameter choice: The choice to make current, or nil to clear it.
    /// - Throws: ``ConcordError`` when the store cannot be written; nothing is changed.
    public func select(_ choice: Choice?) throws {
        let written = try write { k, _ -> (KeyWrite, Lease<Choice>?) in
            guard let choice else { return (.remove, nil) }
            let (lease, write) = try grant(choice, in: k)
            return (write, lease)
        }
        if var granted = written.result {
            granted.version = written.version
            LeaseLossWatch.granted(granted, by: self)
        }
    }

    /// Clears the choice if `choice` is current and this process holds it (or it was stored without
    /// a holder).
    ///
    /// ```swift
    /// try focus.release(.editor)
    /// ```
    ///
    /// - Parameter choice: The choice this process is done with.
    /// - Returns: Whether the choice was cleared.
    /// - Throws: ``ConcordError`` when the store cannot be read or written.
    @discardableResult
    public func release(_ choice: Choice) throws -> Bool {
        try write { _, held -> (KeyWrite, Void) in
            guard let held, held.choice == choice, held.holder == nil || held.isHeldByThisProcess else { return (.keep, ()) }
            return (.remove, ())
        }.version != nil
    }

    /// Every move of the choice committed after observation starts (`value` is the new choice;
    /// moves in quick succession may arrive as one change with the latest choice). A lease that
    /// expires is no change; ``observeLoss(_:)`` tells its holder.
    ///
    /// ```swift
    /// let token = try focus.changes.start { move in print("now", move.value as Any) }
    /// ```
    public var changes: ValueObservation<StoredChange<Choice?>> {
        let choice = self
        return suite.changes(for: reference.key).map { change in StoredChange(change, value: choice.choice(in: change)) }
    }

    /// Calls `handler` with the lease this process held when it stops holding the choice: another
    /// process or replica took it, it was released or cleared, or it expired without a renewal
    /// (told at the expiry). Until the token is cancelled or released.
    ///
    /// ```swift
    /// let watch = try focus.observeLoss { lease in print("lost", lease.choice) }
    /// ```
    ///
    /// - Parameter handler: Called with the lease this process held, once per loss.
    /// - Returns: The token that keeps the watch alive.
    /// - Throws: ``ConcordError`` when observation cannot start.
    public func observeLoss(_ handler: @escaping @Sendable (Lease<Choice>) -> Void) throws -> ObservationToken {
        try LeaseLossWatch.start(self, handler)
    }

    // MARK: - Inside the write transaction

    /// Writes the choice's key through the suite's one write path, deciding with the lease that
    /// counts now (nil when none does).
    private func write<R>(_ decide: (KeyInWrite, Lease<Choice>?) throws -> (KeyWrite, R)) throws -> KeyWritten<R> {
        try reference.write("write") { k in
            var held: Lease<Choice>?
            if let record = try k.record(), let value = try k.value() {
                do { held = try Lease<Choice>(storedValue: value) } catch let error as ConcordError {
                    throw error.at(suite: k.suite, key: k.key)
                }
                held?.version = record.version
                if held?.isLive(now: k.now, in: k.replica) == false { held = nil }
            }
            return try decide(k, held)
        }
    }

    /// A lease of `choice` for this process, expiring a lease duration from now, and the write that stores it.
    private func grant(_ choice: Choice, in k: KeyInWrite) throws -> (Lease<Choice>, KeyWrite) {
        let expires = leaseDuration.map { k.now + $0.wholeMilliseconds }
        let lease = Lease(choice: choice, holder: .thisProcess(on: k.replica), expiresMilliseconds: expires)
        guard let value = try lease.storedValue() else { throw ConcordError.unsupportedValue(key: k.key, reason: "the choice stores nothing") }
        return (lease, .set(value, expiry: nil))
    }

    /// The choice a change stored, if its lease counts now.
    func choice(in change: Change) -> Choice? {
        guard let value = change.value, let lease = try? Lease<Choice>(storedValue: value),
            lease.isLive(now: now, in: suite.store.replicaID)
        else { return nil }
        return lease.choice
    }
}
