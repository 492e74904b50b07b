// The "app": edits the shared settings, then waits until the watch's own edit and launch count,
// synced back into the app's replica, arrive — and ends the scenario.
//
//     example-app APP_DIR [--timeout SECONDS]
import Concord
import Dispatch
import ExampleSettings
import Foundation

let role = "app"
guard CommandLine.arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: example-app APP_DIR [--timeout SECONDS]\n".utf8))
    exit(2)
}
let timeout = option("--timeout", default: 15)

do {
    let store = try Store(path: CommandLine.arguments[1])
    let settings = try store.suite(ExampleSettings.suiteName)

    // What the app needs before it can finish: the watch's font size and both launches.
    let expected = DispatchSemaphore(value: 0)
    let arrived: @Sendable () -> Bool = {
        settings[ExampleSettings.fontSize] == 16 && settings[ExampleSettings.launches] == 2
    }
    let token = try settings.changes().start { change in
        guard change.origin != .thisProcess else { return }
        say(role, "\(change.key) is now \(describe(change.effectiveValue)) (from \(describe(change.origin)))")
        if arrived() { expected.signal() }
    }

    try settings.update(ExampleSettings.launches) { $0 += 1 } // a counter: this replica's launch
    say(role, "launched; launches here: \(settings[ExampleSettings.launches])")
    settings[ExampleSettings.username] = "Ada"
    say(role, "set username to Ada")
    settings[ExampleSettings.theme] = .dark
    say(role, "set theme to dark")
    try settings.set(14, for: ExampleSettings.fontSize) // the throwing form of the same write
    say(role, "set fontSize to 14")

    if !arrived() && expected.wait(timeout: .now() + timeout) == .timedOut {
        say(role, "gave up after \(Int(timeout)) s without the watch's changes: \(ExampleSettings.summary(of: settings))")
        exit(1)
    }
    token.cancel()
    say(role, "the watch's edit and launch arrived: \(ExampleSettings.summary(of: settings))")
    settings[ExampleSettings.finished] = true
    say(role, "final \(ExampleSettings.summary(of: settings))")
} catch {
    say(role, "error: \(error)")
    exit(1)
}
