import Foundation
import Observation
import TestSupport
import Testing

@testable import Concord

struct ThemeKey: SettingKey {
    static let defaultValue = Theme.system
    static let name = "theme"
}

struct FontSizeKey: SettingKey {
    static let defaultValue = 12
    static let name = "fontSize"
}

struct AccentKey: SettingKey {
    static let defaultValue: String? = nil
}

struct WindowKey: SettingKey {
    static let defaultValue = Window(width: 640, height: 480, title: "Untitled")
    static let name = "window"
}

extension SettingValues {
    var theme: Theme {
        get { self[ThemeKey.self] }
        set { self[ThemeKey.self] = newValue }
    }
    var fontSize: Int {
        get { self[FontSizeKey.self] }
        set { self[FontSizeKey.self] = newValue }
    }
    var accent: String? {
        get { self[AccentKey.self] }
        set { self[AccentKey.self] = newValue }
    }
    var window: Window {
        get { self[WindowKey.self] }
        set { self[WindowKey.self] = newValue }
    }
}

/// Two suites of one replica (an app suite over a shared group suite) under a root scope's argument layer.
struct LayeredSandbox {
    let box: Sandbox
    let app: Suite
    let group: Suite
    let root: SettingsScope

    init(arguments: [String] = []) throws {
        box = try Sandbox("settings")
        app = box.suite
        group = try box.store.suite(box.suite.name + ".group")
        root = SettingsScope(suites: [app, group], arguments: arguments)
    }
}

/// Registers one observation of `read`, raising the returned flag when anything it read changes.
func track<T>(_ read: @escaping () -> T) -> Flag {
    let flag = Flag()
    withObservationTracking {
        _ = read()
    } onChange: {
        flag.raise()
    }
    return flag
}

@Suite(.timeLimit(.minutes(1))) struct SettingsTests {
    @Test func aKeyIsNamedAfterItsTypeUnlessGivenAName() {
        #expect(AccentKey.name == "AccentKey")
        #expect(ThemeKey.name == "theme")
    }

    @Test func resolutionOrderIsScopeArgumentsSuitesRegisteredDefaultsDefaultValue() throws {
        let l = try LayeredSandbox()
        defer { l.box.remove() }
        func source() -> SettingSource { l.root.resolve(ThemeKey.self).source }

        #expect(l.root.values.theme == .system)
        #expect(source() == .defaultValue)

        try l.group.register(default: .light, for: Key("theme", default: Theme.system))
        #expect(l.root.values.theme == .light)
        #expect(source() == .registeredDefault(suite: l.group.name))

        try l.app.register(default: .dark, for: Key("theme", default: Theme.system))
        #expect(source() == .registeredDefault(suite: l.app.name), "the first suite's registered default wins")

        try l.group.set("light", forKey: "theme")
        #expect(l.root.values.theme == .light)
        #expect(source() == .suite(l.group.name), "a stored value in any suite beats every registered default")

        try l.app.set("dark", forKey: "theme")
        #expect(l.root.values.theme == .dark)
        #expect(source() == .suite(l.app.name), "the app suite is searched before the group suite")

        l.root.override("theme", text: "system")
        #expect(l.root.values.theme == .system)
        #expect(source() == .argument)

        l.root.override(\.theme, with: .light)
        #expect(l.root.values.theme == .light)
        #expect(source() == .scope(depth: 0), "the root's own typed override beats its argument layer")

        l.root.removeAllOverrides()
        #expect(source() == .suite(l.app.name), "removing a root's overrides removes its arguments too")
        try l.app.remove("theme")
        #expect(source() == .suite(l.group.name))
        try l.group.reset()
        #expect(source() == .registeredDefault(suite: l.app.name))
    }

    @Test func childScopesOverrideForEverythingBeneathThemWithoutWriting() throws {
        let l = try LayeredSandbox()
        defer { l.box.remove() }
        try l.app.set(14, forKey: "fontSize")
        let preview = l.root.child { $0.theme = .dark }
        let large = preview.child(\.fontSize, 20)

        #expect(preview.values.theme == .dark)
        #expect(preview.resolve(ThemeKey.self).source == .scope(depth: 0))
        #expect(large.values.theme == .dark)
        #expect(large.resolve(ThemeKey.self).source == .scope(depth: 1))
        #expect(large.values.fontSize == 20)
        #expect(preview.values.fontSize == 14)
        #expect(l.root.values.theme == .system)
        #expect(try l.app.snapshot() == ["fontSize": .int(14)], "overrides are never written")

        l.root.override("theme", text: "light")
        #expect(preview.values.theme == .dark, "a child scope wins over the argument layer")
        #expect(l.root.values.theme == .light)

        preview.override(\.fontSize, with: 16)
        #expect(preview.values.fontSize == 16)
        #expect(large.values.fontSize == 20)
        preview.removeOverride(\.theme)
        #expect(preview.values.theme == .light)
        #expect(large.values.theme == .light)

        @Setting(\.fontSize, in: large) var size
        #expect(size == 20)
        @Setting(\.fontSize) var fromCurrent
        #expect(fromCurrent == 12, "with no scope set, the key's default")
        SettingsScope.$current.withValue(preview) { #expect(fromCurrent == 16) }
    }

    @Test func overridesFromArgumentsAreReadAsTheSettingsType() throws {
        let arguments = ["--theme", "dark", "-fontSize", "18", "--window={\"width\":1,\"height\":2,\"title\":\"t\"}", "--accent=", "stray"]
        #expect(
            ArgumentOverrides.parse(arguments) == [
                "theme": "dark", "fontSize": "18", "window": "{\"width\":1,\"height\":2,\"title\":\"t\"}", "accent": ""
            ])
        let l = try LayeredSandbox(arguments: arguments)
        defer { l.box.remove() }
        #expect(l.root.values.theme == .dark)
        #expect(l.root.values.fontSize == 18)
        #expect(l.root.values.window == Window(width: 1, height: 2, title: "t"))

        l.root.override("fontSize", text: "huge")
        try l.app.set(15, forKey: "fontSize")
        #expect(l.root.values.fontSize == 15, "an override that is not an Int is skipped")
        #expect(l.root.resolve(FontSizeKey.self).source == .suite(l.app.name))
        #expect(ReportedErrors.of(suite: "(overrides)").contains { $0.key == "fontSize" })
    }

    @Test func aStoredValueOfAnotherTypeDoesNotHideTheLayersBeneath() throws {
        let l = try LayeredSandbox()
        defer { l.box.remove() }
        try l.app.set("big", forKey: "fontSize")
        try l.group.set(13, forKey: "fontSize")
        #expect(l.root.values.fontSize == 13)
        #expect(ReportedErrors.of(suite: l.app.name).contains { $0.key == "fontSize" })
    }

    @Test func observersOfTheResolvedValueHearFromEveryLayer() throws {
        let l = try LayeredSandbox()
        defer { l.box.remove() }
        let child = l.root.child { _ in }
        let key = Key("theme", default: Theme.system)

        var told = track { child.values.theme }
        try l.group.register(default: .light, for: key)
        #expect(told.raised == 1, "registered default")
        #expect(child.values.theme == .light)

        told = track { child.values.theme }
        try l.group.set("dark", forKey: "theme")
        #expect(told.wait(), "group suite")
        #expect(child.values.theme == .dark)

        told = track { child.values.theme }
        l.app[key] = .system
        #expect(told.raised == 1, "app suite")
        #expect(child.values.theme == .system)

        told = track { child.values.theme }
        l.root.override("theme", text: "light")
        #expect(told.raised == 1, "argument layer")
        #expect(child.values.theme == .light)

        told = track { child.values.theme }
        l.root.override(\.theme, with: .dark)
        #expect(told.raised == 1, "parent scope")
        #expect(child.values.theme == .dark)

        told = track { child.values.theme }
        child.override(\.theme, with: .system)
        #expect(told.raised == 1, "the scope itself")
        #expect(child.values.theme == .system)

        @Setting(\.theme, in: child) var theme
        told = track { theme }
        child.removeOverride(\.theme)
        #expect(told.raised == 1, "@Setting reads are tracked too")
        #expect(theme == .dark)
    }

    @Test func observeDeliversEachNewResolvedValue() throws {
        let l = try LayeredSandbox()
        defer { l.box.remove() }
        let seen = Collector<Int>()
        let watching = l.root.observe(\.fontSize) { seen.append($0) }
        try l.group.set(13, forKey: "fontSize")
        #expect(seen.wait(for: 1))
        try l.app.set(14, forKey: "fontSize")
        #expect(seen.wait(for: 2))
        l.root.override("fontSize", text: "15")
        #expect(seen.wait(for: 3))
        l.root.removeAllOverrides()
        #expect(seen.wait(for: 4))
        #expect(seen.values == [13, 14, 15, 14])
        watching.stop()
    }
}
