// The "widget": another process on the app's replica that shows the settings live. An `UpdateHost`
// re-renders its view whenever a setting it read changes — written by the app's process or merged
// in by the watch's sync — until the app says the scenario is over.
//
//     example-widget APP_DIR [--timeout SECONDS]
import Concord
import Dispatch
import ExampleSettings
import Foundation

let role = "widget"
guard CommandLine.arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: example-widget APP_DIR [--timeout SECONDS]\n".utf8))
    exit(2)
}
let timeout = option("--timeout", default: 20)

/// What the widget shows: four settings, read through `@Stored`.
struct WidgetView: Sendable {
    @Stored var username: String
    @Stored var theme: Theme
    @Stored var fontSize: Int
    @Stored var launches: Int

    init(suite: Suite) {
        _username = Stored(ExampleSettings.username, in: suite)
        _theme = Stored(ExampleSettings.theme, in: suite)
        _fontSize = Stored(ExampleSettings.fontSize, in: suite)
        _launches = Stored(ExampleSettings.launches, in: suite)
    }
}

do {
    let store = try Store(path: CommandLine.arguments[1])
    let settings = try store.suite(ExampleSettings.suiteName)

    let finished = DispatchSemaphore(value: 0)
    let token = try settings.changes().start { change in
        if change.key == ExampleSettings.finished.name {
            finished.signal()
        } else {
            say(role, "\(change.key) changed to \(describe(change.effectiveValue)) by \(describe(change.origin))")
        }
    }
    let host = UpdateHost(WidgetView(suite: settings)) { view in
        say(role, "shows \(view.username) · \(view.theme.rawValue) · \(view.fontSize) pt · \(view.launches) launches")
    }
    host.start()
    say(role, "ready")

    if !settings[ExampleSettings.finished] && finished.wait(timeout: .now() + timeout) == .timedOut {
        say(role, "gave up after \(Int(timeout)) s: the app never finished")
        exit(1)
    }
    host.stop()
    token.cancel()
    say(role, "final \(ExampleSettings.summary(of: settings))")
} catch {
    say(role, "error: \(error)")
    exit(1)
}
