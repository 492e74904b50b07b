/// The outcome of `ExclusiveChoice.claim(_:ifCurrent:)`.
///
/// ```swift
/// switch try focus.claim(.editor, ifCurrent: nil) {
/// case .claimed: startEditing()
/// case .refused(let holder): print("busy:", holder as Any)
/// }
/// ```
public enum ClaimResult<Choice: Hashable & Sendable>: Hashable, Sendable {
    /// The choice is now the claimed one.
    case claimed
    /// The current choice was not the expected one; nothing was written. `current` is what it was.
    case refused(current: Choice?)

    /// Whether the claim succeeded.
    public var succeeded: Bool { self == .claimed }
}
