import Concord
import Foundation

/// The settings the example's three processes share: typed keys in one suite, so the app, the
/// widget and the watch read and write them alike.
public enum ExampleSettings {
    /// The suite the app group keeps its settings in.
    public static let suiteName = "group.example.settings"

    /// The user's name, "Guest" until the app sets it.
    public static let username = Key("username", default: "Guest")
    /// The colour scheme, stored as its raw value.
    public static let theme = Key("theme", default: Theme.system)
    /// The text size in points.
    public static let fontSize = Key("fontSize", default: 12)
    /// How many times any replica launched: a counter, so launches on the phone and on the watch add up.
    public static let launches = Key("launches", default: 0, policy: .counter)
    /// Set by the app when its scenario is over: the widget and the watch stop when they read it.
    public static let finished = Key("example.finished", default: false)

    /// One line showing every setting, as each process prints what it sees.
    public static func summary(of suite: Suite) -> String {
        "\(suite[username]) · \(suite[theme].rawValue) · \(suite[fontSize]) pt · \(suite[launches]) launches"
    }
}

/// The app's colour scheme.
public enum Theme: String, StorableValue {
    case system, light, dark
}

/// Where a change came from, in words.
public func describe(_ origin: ChangeOrigin) -> String {
    switch origin {
    case .thisProcess: "this process"
    case .otherProcess: "another process"
    case .sync: "a sync"
    case .expired: "its expiry"
    }
}

/// A stored value as a person reads it.
public func describe(_ value: Value?) -> String {
    switch value {
    case nil: "(removed)"
    case .string(let s)?: s
    case .int(let i)?: String(i)
    case .bool(let b)?: String(b)
    case .double(let d)?: String(d)
    case let other?: String(describing: other)
    }
}

/// Prints one line, prefixed with the process's role, and flushes it at once (the script reads the
/// three processes' output as it comes).
public func say(_ role: String, _ line: String) {
    FileHandle.standardOutput.write(Data("\(role): \(line)\n".utf8))
}

/// The value of `--name VALUE` among the arguments, or `fallback`.
public func option(_ name: String, default fallback: Double) -> Double {
    let arguments = CommandLine.arguments
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = Double(arguments[i + 1]) else { return fallback }
    return value
}
