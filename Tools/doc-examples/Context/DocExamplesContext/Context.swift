import Concord
import ConcordHub
import Foundation

// The names the public doc comments and articles use without declaring them: the cast every example
// shares. Anything else an example uses it declares itself, in its `<!-- assume: … -->` comment.

/// A replica, and a suite of it.
public let store: Store = given()
/// A suite of `store`.
public let suite: Suite = given()
/// Replicas of one user's devices.
public let phone: Store = given()
/// Replicas of one user's devices.
public let watch: Store = given()
/// Replicas of one user's devices.
public let laptop: Store = given()
/// A PostgreSQL hub.
nonisolated(unsafe) public let hub: Hub = given()

/// A setting with a few values.
public enum Theme: String, StorableValue, Sendable { case system, light, dark }
/// A focus the panes of a window share.
public enum Pane: String, StorableValue, Sendable { case editor, sidebar, search }

/// A typed setting key.
public struct ThemeKey: SettingKey {
    public static let defaultValue = Theme.system
    public static let name = "theme"
}
/// A typed setting key.
public struct FontSizeKey: SettingKey {
    public static let defaultValue = 12
    public static let name = "fontSize"
}
extension SettingValues {
    /// The theme, through the layers.
    public var theme: Theme {
        get { self[ThemeKey.self] }
        set { self[ThemeKey.self] = newValue }
    }
    /// The font size, through the layers.
    public var fontSize: Int {
        get { self[FontSizeKey.self] }
        set { self[FontSizeKey.self] = newValue }
    }
}
/// Settings resolved through overrides and suites.
public let scope: SettingsScope = given()

/// A type with stored properties.
public struct Profile: Sendable {
    @Stored("username", in: suite) public var username = "Guest"
    @Stored("launchCount", in: suite, policy: .counter) public var launchCount = 0
    @Stored("theme", in: suite) public var theme = Theme.system
    @Stored("lastOpened", in: suite) public var lastOpened: Date?
    public init() {}
}
/// An instance of it.
public let profile = Profile()

/// What an `UpdateHost` renders.
public struct Greeting: Sendable {
    @Stored("username", in: suite) public var username = "Guest"
    @Setting(\.theme) public var theme
    public init() {}
}

/// An exclusive choice of a pane.
public let focus = Exclusive<Pane>("focus", in: suite, lease: .seconds(30))

// Stand-ins for the app's own code the examples call.

/// Starts editing (until the lease runs out).
public func startEditing(until expiry: Date? = nil) {}
/// Stops editing.
public func stopEditing() {}
/// Stops editing what was chosen.
public func stopEditing<Choice>(_ choice: Choice) {}
/// Edits.
public func edit() {}
/// Renders the user interface.
public func render() {}
/// Shows the first-launch screens.
public func showOnboarding() {}
/// Applies a setting to the user interface.
public func apply<T>(_ value: T) {}
/// Greets the user.
public func greet(_ name: String) {}
/// Saves a draft the way the app does (what a test of the app's code calls).
public func saveDraft(_ text: String, in suite: Suite) async throws {}

/// The app's main-actor state.
@MainActor public final class AppModel {
    /// A title shown.
    public var title = ""
    /// The theme shown.
    public var theme: Value?
    /// Notes that a key changed.
    public func changed(_ suite: String, _ key: String) {}
}
/// The app's model.
@MainActor public let model = AppModel()

/// A label of the user interface.
@MainActor public final class Label {
    /// What it shows.
    public var text = ""
}
/// A label.
@MainActor public let label = Label()

/// An actor of the app's that keeps settings.
public actor Cache {
    /// A name kept.
    public var username = ""
    /// A theme kept.
    public var theme: Value?
    /// Keeps a theme.
    public func set(_ value: Value?) { theme = value }
    /// Forgets a key.
    public func forget(_ suite: String, _ key: String) {}
    /// Creates one.
    public init() {}
}
/// The app's cache.
public let cache = Cache()
