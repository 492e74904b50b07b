/// The outcome of a claim as its write transaction saw it: the lease granted, or the choice that
/// was current instead (`Exclusive.claim(_:ifCurrent:)` returns the lease, or nil).
package enum ClaimResult<Choice: StorableValue & Hashable>: Hashable, Sendable {
    /// The choice is now the claimed one, held by this process under this lease.
    case claimed(Lease<Choice>)
    /// The current choice was not the expected one; nothing was written. `current` is what it was.
    case refused(current: Choice?)

    /// The lease a successful claim holds.
    package var lease: Lease<Choice>? {
        if case .claimed(let lease) = self { return lease }
        return nil
    }
}
