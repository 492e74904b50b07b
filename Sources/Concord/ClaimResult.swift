/// The outcome of `ExclusiveChoice.claim(_:ifCurrent:)`.
///
/// ```swift
/// switch try focus.claim(.editor, ifCurrent: nil) {
/// case .claimed(let lease): startEditing(until: lease.expires)
/// case .refused(let holder): print("busy:", holder as Any)
/// }
/// ```
public enum ClaimResult<Choice: StorableValue & Hashable>: Hashable, Sendable {
    /// The choice is now the claimed one, held by this process under this lease.
    case claimed(Lease<Choice>)
    /// The current choice was not the expected one; nothing was written. `current` is what it was.
    case refused(current: Choice?)

    /// Whether the claim succeeded.
    public var succeeded: Bool {
        if case .claimed = self { return true }
        return false
    }

    /// The lease a successful claim holds.
    public var lease: Lease<Choice>? {
        if case .claimed(let lease) = self { return lease }
        return nil
    }
}
