/// A property holding an exclusive choice — the `@FocusState` analog, shared across processes.
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
/// Setting moves the choice unconditionally (held by this process); a failed write changes nothing,
/// is kept as the key's `lastError` and goes to `UnhandledErrors`. `$name` is the `ExclusiveChoice`,
/// with `claim`, `renew`, `release`, `changes` and `observeLoss`.
@propertyWrapper
public struct Exclusive<Choice: StorableValue & Hashable>: StoreProperty {
    /// The choice behind the property.
    public let choice: ExclusiveChoice<Choice>

    /// A property holding `choice`.
    public init(_ choice: ExclusiveChoice<Choice>) {
        self.choice = choice
    }

    /// A property holding the choice under `key` of `suite` (with `lease`, held for that long unless renewed).
    ///
    /// <!-- assume: enum Field: String, StorableValue { case email, password } -->
    /// ```swift
    /// @Exclusive("login.focus", in: suite) var focused: Field?
    /// ```
    public init(_ key: String, in suite: Suite, lease: Duration? = nil) {
        self.init(ExclusiveChoice(key, in: suite, lease: lease))
    }

    /// What is chosen now; setting moves the choice.
    public var wrappedValue: Choice? {
        get { choice.current }
        nonmutating set {
            do { try choice.select(newValue) } catch { choice.reference.reportUnthrown(error) }
        }
    }

    /// The choice, with `claim`, `renew`, `release`, `changes` and `observeLoss`.
    public var projectedValue: ExclusiveChoice<Choice> { choice }
}
