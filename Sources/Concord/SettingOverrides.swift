import Observation
import Synchronization

/// The in-memory layer on top of every suite: values that win over what is stored, without
/// being stored — from command-line arguments, or set by tests. The analog of UserDefaults'
/// argument domain. Observable: changing it notifies observers of the settings it affects.
///
/// <!-- assume: let appSuite = try store.suite("app"), groupSuite = try store.suite("group.example.app") -->
/// ```swift
/// // myapp --theme dark -fontSize 18
/// let overrides = SettingOverrides(arguments: Array(CommandLine.arguments.dropFirst()))
/// overrides.set(Theme.light, for: ThemeKey.self)     // typed
/// overrides.remove(ThemeKey.self)
/// let scope = SettingsScope(overrides: overrides, suites: [appSuite, groupSuite])
/// ```
///
/// Text values (from arguments) are read as the setting's type when it is resolved: first as a
/// string, then as JSON (`18`, `true`, `[1,2]`, `{"w":1}`). Text that fits neither is reported
/// once through `UnhandledErrors` and skipped, so the layers beneath answer.
public final class SettingOverrides: Observable, Sendable {
    private enum Entry: Sendable {
        case typed(any Sendable)
        case text(String)
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var reported: Set<String> = []
    }

    private let state: Mutex<State>
    private let registrar = ObservationRegistrar()

    /// An override layer holding `texts` (setting name → text).
    public init(_ texts: [String: String] = [:]) {
        state = Mutex(State(entries: texts.mapValues { .text($0) }))
    }

    /// An override layer from command-line arguments (without the program name):
    /// `--name value`, `-name value` and `--name=value` each override the setting `name`.
    /// Arguments that are not of these forms are ignored.
    public convenience init(arguments: [String]) {
        self.init(Self.parse(arguments))
    }

    /// The `name → text` pairs found in `arguments` (the last one wins).
    public static func parse(_ arguments: [String]) -> [String: String] {
        var out: [String: String] = [:]
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            let name = argument.drop { $0 == "-" }
            guard argument.hasPrefix("-"), !name.isEmpty else {
                i += 1
                continue
            }
            if let equals = name.firstIndex(of: "=") {
                let key = name[..<equals]
                if !key.isEmpty { out[String(key)] = String(name[name.index(after: equals)...]) }
                i += 1
            } else if i + 1 < arguments.count {
                out[String(name)] = arguments[i + 1]
                i += 2
            } else {
                i += 1
            }
        }
        return out
    }

    /// The names that have an override.
    public var names: [String] {
        registrar.access(self, keyPath: \.anchor)
        return state.withLock { $0.entries.keys.sorted() }
    }

    /// Overrides the setting `key` with `value`.
    public func set<K: SettingKey>(_ value: K.Value, for key: K.Type) {
        change { $0.entries[K.name] = .typed(value) }
    }

    /// Overrides the setting named `name` with `text`, read as the setting's type when resolved.
    public func set(text: String, forName name: String) {
        change { $0.entries[name] = .text(text) }
    }

    /// Removes the override of `key`.
    public func remove<K: SettingKey>(_ key: K.Type) {
        remove(name: K.name)
    }

    /// Removes the override named `name`.
    public func remove(name: String) {
        change { $0.entries[name] = nil }
    }

    /// Removes every override.
    public func removeAll() {
        change { $0.entries = [:] }
    }

    /// The override of `key`, if there is one that reads as its type.
    func value<K: SettingKey>(for key: K.Type) -> K.Value? {
        registrar.access(self, keyPath: \.anchor)
        guard let entry = state.withLock({ $0.entries[K.name] }) else { return nil }
        switch entry {
        case .typed(let value):
            return value as? K.Value
        case .text(let text):
            if let value = try? K.Value(storedValue: .string(text)) { return value }
            if let parsed = try? JSONValue.parse(text), let value = try? K.Value(storedValue: parsed) { return value }
            let first = state.withLock { $0.reported.insert("\(K.name)\u{0}\(text)").inserted }
            if first {
                UnhandledErrors.report(
                    ConcordError.typeMismatch(stored: "text \"\(text)\"", requested: K.Value.storedTypeName).during("read", suite: "(overrides)", key: K.name))
            }
            return nil
        }
    }

    /// What observation tracks; its value never matters.
    private var anchor: Int { 0 }

    /// Changes the entries, then tells observers (after, so `onChange` already reads the new value).
    private func change(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
        registrar.withMutation(of: self, keyPath: \.anchor) {}
    }
}
