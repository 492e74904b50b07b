import Observation
import Synchronization

/// A root scope's argument layer: setting values given as text (from command-line arguments, or
/// ``SettingsScope/override(_:text:)``) that win over what is stored, without being stored — the analog
/// of UserDefaults' argument domain. Shared by a root ``SettingsScope`` and all its children, and
/// observable: a change notifies observers of the settings it affects.
///
/// Text is read as the setting's type when it is resolved: first as a string, then as JSON (`18`,
/// `true`, `[1,2]`, `{"w":1}`). Text that fits neither is reported once to the unhandled-error handler
/// and skipped, so the layers beneath answer.
final class ArgumentOverrides: Observable, Sendable {

    private struct State {
        var entries: [String: String] = [:]
        var reported: Set<String> = []
    }

    private let state: Mutex<State>
    private let registrar = ObservationRegistrar()

    /// An argument layer from command-line arguments (without the program name):
    /// `--name value`, `-name value` and `--name=value` each override the setting `name`.
    /// Arguments that are not of these forms are ignored.
    init(arguments: [String]) {
        state = Mutex(State(entries: Self.parse(arguments)))
    }

    /// The `name → text` pairs found in `arguments` (the last one wins).
    static func parse(_ arguments: [String]) -> [String: String] {
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

    /// Overrides the setting named `name` with `text`, read as the setting's type when resolved.
    func set(text: String, forName name: String) {
        change { $0.entries[name] = text }
    }

    /// Removes the override named `name`.
    func remove(name: String) {
        change { $0.entries[name] = nil }
    }

    /// Removes every override.
    func removeAll() {
        change { $0.entries = [:] }
    }

    /// The override of `key`, if there is one that reads as its type.
    func value<K: SettingKey>(for key: K.Type) -> K.Value? {
        registrar.access(self, keyPath: \.anchor)
        guard let text = state.withLock({ $0.entries[K.name] }) else { return nil }
        if let value = try? K.Value(storedValue: .string(text)) { return value }
        if let parsed = try? JSONValue.parse(text), let value = try? K.Value(storedValue: parsed) { return value }
        let first = state.withLock { $0.reported.insert("\(K.name)\u{0}\(text)").inserted }
        if first {
            UnhandledErrors.report(
                ConcordError.typeMismatch(stored: "text \"\(text)\"", requested: K.Value.storedTypeName).during("read", suite: "(overrides)", key: K.name))
        }
        return nil
    }

    /// What observation tracks; its value never matters.
    private var anchor: Int { 0 }

    /// Changes the entries, then tells observers (after, so `onChange` already reads the new value).
    private func change(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
        registrar.withMutation(of: self, keyPath: \.anchor) {}
    }
}
