import Observation
import Synchronization

/// Where layered settings are resolved — the analog of the environment a SwiftUI view reads.
///
/// A root scope has an ordered chain of layers, like UserDefaults' search list:
/// 1. its argument layer: text from command-line arguments (`--theme dark`) or ``override(_:text:)``,
/// 2. each suite in order (an app suite over a shared group suite): a stored value,
/// 3. each suite's registered default, in the same order,
/// 4. the key's ``SettingKey/defaultValue``.
///
/// Its own typed overrides (``override(_:with:)``) win over all of that, and a child scope
/// (``child(_:)``) overrides values for everything that reads through it, on top, without writing
/// anything to the store; children of children stack.
///
/// <!-- assume:
/// let args = Array(CommandLine.arguments.dropFirst())
/// let app = try store.suite("app"), group = try store.suite("group.example.app")
/// -->
/// ```swift
/// let root = SettingsScope(suites: [app, group], arguments: args)
/// root.values.theme                                // resolved through the layers
/// let preview = root.child { $0.theme = .dark }    // .dark for everything beneath it
/// @Setting(\.theme, in: preview) var theme         // .dark
/// ```
///
/// Scopes are observable: reading a setting inside `withObservationTracking` (or an ``UpdateHost``)
/// is told when any layer that took part in resolving it changes — an argument, a scope's own
/// override, a suite's stored value (from any process or a sync), or a default registered
/// through ``Suite/register(default:for:)`` or ``Suite/register(defaults:)``.
/// A stored value of the wrong type does not hide the layers beneath it; it is reported once
/// through the unhandled-error handler (``ConcordError/setUnhandledErrorHandler(_:)``) and skipped, and so is an argument that does not read as the setting's type.
public final class SettingsScope: Observable, Sendable {
    /// The scope this one overrides, if it is a child.
    public let parent: SettingsScope?
    /// The suites searched, in order (shared by a root and all its children).
    public let suites: [Suite]
    /// The argument layer (shared by a root and all its children).
    let arguments: ArgumentOverrides

    private let local: Mutex<[ObjectIdentifier: any Sendable]>
    private let registrar = ObservationRegistrar()
    private let references: ReferenceCache

    /// The scope `@Setting` properties without an explicit scope read from (task-local; an
    /// empty root with no suites unless set).
    ///
    /// ```swift
    /// SettingsScope.$current.withValue(scope) { render() }
    /// ```
    @TaskLocal public static var current = SettingsScope(suites: [])

    /// A root scope over `suites` (searched in order) under the settings `arguments` name:
    /// `--name value`, `-name value` and `--name=value` each override the setting `name`, read as the
    /// setting's type when it is resolved (as a string, else as JSON: `18`, `true`, `[1,2]`). Arguments
    /// of other forms are ignored.
    ///
    /// ```swift
    /// // myapp --theme dark -fontSize 18
    /// let root = SettingsScope(suites: [suite], arguments: Array(CommandLine.arguments.dropFirst()))
    /// ```
    public init(suites: [Suite], arguments: [String] = []) {
        self.parent = nil
        self.arguments = ArgumentOverrides(arguments: arguments)
        self.suites = suites
        self.local = Mutex([:])
        self.references = ReferenceCache()
    }

    private init(parent: SettingsScope, local: [ObjectIdentifier: any Sendable]) {
        self.parent = parent
        self.arguments = parent.arguments
        self.suites = parent.suites
        self.local = Mutex(local)
        self.references = parent.references
    }

    /// The settings as seen from this scope.
    public var values: SettingValues { SettingValues(scope: self) }

    /// The value of one setting, resolved from this scope.
    public subscript<Value>(keyPath: KeyPath<SettingValues, Value>) -> Value {
        values[keyPath: keyPath]
    }

    /// A child scope with the overrides `configure` assigns.
    ///
    /// ```swift
    /// let compact = scope.child { $0.fontSize = 11; $0.theme = .light }
    /// ```
    public func child(_ configure: (inout SettingValues) -> Void) -> SettingsScope {
        var values = SettingValues(scope: self)
        configure(&values)
        return SettingsScope(parent: self, local: values.assigned)
    }

    /// A child scope overriding one setting.
    public func child<Value>(_ keyPath: WritableKeyPath<SettingValues, Value>, _ value: Value) -> SettingsScope {
        child { $0[keyPath: keyPath] = value }
    }

    /// Overrides a setting in this scope (and so for everything beneath it), in memory only.
    public func override<Value>(_ keyPath: WritableKeyPath<SettingValues, Value>, with value: Value) {
        var probe = SettingValues(scope: self)
        probe[keyPath: keyPath] = value
        changeLocal { $0.merge(probe.assigned) { _, new in new } }
    }

    /// Removes this scope's own override of a setting.
    public func removeOverride<Value>(_ keyPath: WritableKeyPath<SettingValues, Value>) {
        var probe = SettingValues(scope: self)
        probe[keyPath: keyPath] = probe[keyPath: keyPath]
        changeLocal { local in for id in probe.assigned.keys { local[id] = nil } }
    }

    /// Overrides the setting named `name` in the argument layer (shared by the root and all its
    /// children) with `text`, read as the setting's type when it is resolved — as an argument
    /// `--name text` does.
    ///
    /// ```swift
    /// scope.override("fontSize", text: "18")
    /// ```
    public func override(_ name: String, text: String) {
        arguments.set(text: text, forName: name)
    }

    /// Removes the argument layer's override of the setting named `name`.
    public func removeOverride(_ name: String) {
        arguments.remove(name: name)
    }

    /// Removes this scope's own overrides, and on a root scope its argument layer too.
    public func removeAllOverrides() {
        changeLocal { $0 = [:] }
        if parent == nil { arguments.removeAll() }
    }

    /// The value of `key` and the layer it came from.
    func resolve<K: SettingKey>(_ key: K.Type) -> ResolvedSetting<K.Value> {
        let id = ObjectIdentifier(key)
        var depth = 0
        var scope: SettingsScope? = self
        while let current = scope {
            current.registrar.access(current, keyPath: \.anchor)
            if let value = current.local.withLock({ $0[id] }) as? K.Value {
                return ResolvedSetting(value: value, source: .scope(depth: depth))
            }
            depth += 1
            scope = current.parent
        }
        if let value = arguments.value(for: key) {
            return ResolvedSetting(value: value, source: .argument)
        }
        var lookups: [(String, StoredLookup<K.Value>)] = []
        for suite in suites {
            let lookup = references.reference(for: key, in: suite).lookup()
            if case .stored(let value) = lookup { return ResolvedSetting(value: value, source: .suite(suite.name)) }
            lookups.append((suite.name, lookup))
        }
        for (name, lookup) in lookups {
            if case .registeredDefault(let value) = lookup { return ResolvedSetting(value: value, source: .registeredDefault(suite: name)) }
        }
        return ResolvedSetting(value: K.defaultValue, source: .defaultValue)
    }

    /// Calls `handler` with the new resolved value whenever it changes, whichever layer changed,
    /// until the returned host is stopped or released (``UpdateHost/stop()``). Runs on the host's own queue.
    ///
    /// ```swift
    /// let watching = scope.observe(\.theme) { theme in apply(theme) }
    /// ```
    public func observe<Value: Equatable & Sendable>(
        _ keyPath: KeyPath<SettingValues, Value> & Sendable,
        _ handler: @escaping @Sendable (Value) -> Void
    ) -> UpdateHost<SettingsScope> {
        let last = Mutex<Value?>(nil)
        let host = UpdateHost(self) { scope in
            let value = scope[keyPath]
            let changed = last.withLock { previous -> Bool in
                defer { previous = value }
                return previous != nil && previous != value
            }
            if changed { handler(value) }
        }
        host.start()
        return host
    }

    /// What observation tracks; its value never matters.
    private var anchor: Int { 0 }

    private func changeLocal(_ body: (inout [ObjectIdentifier: any Sendable]) -> Void) {
        local.withLock { body(&$0) }
        registrar.withMutation(of: self, keyPath: \.anchor) {}
    }
}

/// The shared per-key references a root scope reads suites through, kept alive with the scope.
private final class ReferenceCache: Sendable {
    private struct Identity: Hashable {
        let suite: String
        let directory: String
        let key: ObjectIdentifier
    }

    private let table = Mutex<[Identity: AnyObject]>([:])

    func reference<K: SettingKey>(for key: K.Type, in suite: Suite) -> StoredReference<K.Value> {
        let identity = Identity(suite: suite.name, directory: suite.store.directory, key: ObjectIdentifier(key))
        if let found = table.withLock({ $0[identity] as? StoredReference<K.Value> }) { return found }
        let reference = StoredReference<K.Value>.shared(suite: suite, key: K.name)
        table.withLock { $0[identity] = reference }
        return reference
    }
}
