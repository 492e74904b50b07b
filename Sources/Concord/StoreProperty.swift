/// A store-backed property that a host refreshes before it recomputes — the analog of SwiftUI's
/// `DynamicProperty`. `@Stored`, `@Setting` and `@Exclusive` conform; conform your own property
/// wrappers to build store-backed state of your own (see `StoredDocument` for a complete one).
///
/// A host (`UpdateHost`) finds every `StoreProperty` among the stored properties of what it hosts
/// (looking inside nested ones too), calls `update()` on each, then recomputes, while tracking
/// what was read; when any of it changes, it does the same again.
///
/// ```swift
/// final class Shown: Sendable { let count = Mutex(0) }
///
/// /// Shows a stored count, refreshed when the host updates (so one render sees one value).
/// @propertyWrapper
/// struct ShownCount: StoreProperty {
///     @Stored private var stored: Int
///     private let shown = Shown()
///
///     init(_ key: String, in suite: Suite) { _stored = Stored(wrappedValue: 0, key, in: suite) }
///
///     var wrappedValue: Int { shown.count.withLock { $0 } }
///     func update() { let now = stored; shown.count.withLock { $0 = now } }
/// }
/// ```
public protocol StoreProperty: Sendable {
    /// Called by the host before each recompute: refresh whatever the property shows from storage.
    /// Reads made here are tracked, so a change to them makes the host recompute.
    func update()
}

extension StoreProperty {
    /// Properties that always read through to storage need no refresh.
    public func update() {}
}
