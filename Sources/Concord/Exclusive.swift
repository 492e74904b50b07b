/// A property holding an exclusive choice — the `@FocusState` analog, shared across processes.
///
/// ```swift
/// enum Field: String { case email, password }
///
/// struct LoginForm {
///     @Exclusive("login.focus", in: suite) var focused: Field?
/// }
///
/// form.focused = .password                              // move the choice
/// try form.$focused.claim(.email, ifCurrent: nil)       // compare-and-set, atomic across processes
/// ```
///
/// Setting moves the choice unconditionally; a failed write changes nothing, is kept as the
/// key's `lastError` and goes to `WrapperErrors`. `$name` is the `ExclusiveChoice`.
@propertyWrapper
public struct Exclusive<Choice: Hashable & Sendable>: StoreProperty {
    /// The choice behind the property.
    public let choice: ExclusiveChoice<Choice>

    /// A property holding `choice`.
    public init(_ choice: ExclusiveChoice<Choice>) {
        self.choice = choice
    }

    /// A property holding the choice under `key` of `suite`, stored with `coding`.
    public init(_ key: String, in suite: Suite, coding: ValueCoding<Choice>) {
        self.init(ExclusiveChoice(key, in: suite, coding: coding))
    }

    /// What is chosen now; setting moves the choice.
    public var wrappedValue: Choice? {
        get { choice.current }
        nonmutating set {
            do { try choice.select(newValue) } catch { choice.reference.reportUnthrown(error) }
        }
    }

    /// The choice, with `claim`, `release`, `changes` and `observe`.
    public var projectedValue: ExclusiveChoice<Choice> { choice }
}

extension Exclusive where Choice: StorableValue {
    /// A property holding the choice under `key` of `suite`.
    public init(_ key: String, in suite: Suite) { self.init(key, in: suite, coding: .storable) }
}

extension Exclusive where Choice: StorableValue & Codable {
    /// A property holding the choice under `key` of `suite`.
    public init(_ key: String, in suite: Suite) { self.init(key, in: suite, coding: .storable) }
}

extension Exclusive where Choice: RawRepresentable, Choice.RawValue: StorableValue {
    /// A property holding the choice under `key` of `suite`, stored as its raw value.
    public init(_ key: String, in suite: Suite) { self.init(key, in: suite, coding: .rawRepresentable) }
}

extension Exclusive where Choice: RawRepresentable & Codable, Choice.RawValue: StorableValue {
    /// A property holding the choice under `key` of `suite`, stored as its raw value.
    public init(_ key: String, in suite: Suite) { self.init(key, in: suite, coding: .rawRepresentable) }
}

extension Exclusive where Choice: Codable {
    /// A property holding the choice under `key` of `suite`, stored as its JSON structure.
    public init(_ key: String, in suite: Suite) { self.init(key, in: suite, coding: .codable) }
}
