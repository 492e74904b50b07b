// The "watch": a replica of its own (its own directory), kept in sync with the app's replica by the
// library's live sync with a directory peer: it syncs at once, then after every commit on either side
// (each store's change notification wakes it), so edits travel both ways within milliseconds.
// The watch launches (a counter increment on its replica) and, once the app's font size arrives,
// its user makes the text bigger; both travel back to the app.
//
//     example-watch APP_DIR WATCH_DIR [--timeout SECONDS]
import Concord
import Dispatch
import ExampleSettings
import Foundation
import Synchronization

let role = "watch"
guard CommandLine.arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: example-watch APP_DIR WATCH_DIR [--timeout SECONDS]\n".utf8))
    exit(2)
}
let timeout = option("--timeout", default: 20)

do {
    let watch = try Store(path: CommandLine.arguments[2])
    let settings = try watch.suite(ExampleSettings.suiteName)

    let finished = DispatchSemaphore(value: 0)
    let edited = Atomic(false)
    let token = try settings.changes().start { change in
        guard case .sync = change.origin else { return }
        if change.key == ExampleSettings.finished.name {
            finished.signal()
            return
        }
        say(role, "\(change.key) arrived: \(describe(change.effectiveValue))")
        // The watch's user finds 14 pt too small: a local edit, which syncs back to the phone.
        if change.key == ExampleSettings.fontSize.name, change.value == .int(14), !edited.exchange(true, ordering: .relaxed) {
            settings[ExampleSettings.fontSize] = 16
            say(role, "set fontSize to 16")
        }
    }

    try settings.update(ExampleSettings.launches) { $0 += 1 }
    say(role, "launched; launches here: \(settings[ExampleSettings.launches])")
    let live = try LiveSync(store: watch, directory: CommandLine.arguments[1])
    // Each round that moved something, and each failure, as the loop's state reports them.
    Task {
        var (rounds, lastError): (Int, String?) = (0, nil)
        for await state in live.states() {
            if state.rounds > rounds, let round = state.lastRound, !round.isInSync {
                say(role, "synced: \(round.bToA.recordsChanged) change(s) to the watch, \(round.aToB.recordsChanged) to the phone")
            }
            if let error = state.lastError, error != lastError { say(role, "sync failed, retrying: \(error)") }
            (rounds, lastError) = (state.rounds, state.lastError)
        }
    }
    say(role, "ready")

    if !settings[ExampleSettings.finished] && finished.wait(timeout: .now() + timeout) == .timedOut {
        say(role, "gave up after \(Int(timeout)) s: the app never finished")
        exit(1)
    }
    token.cancel()
    live.stop() // the round under way finishes first
    say(role, "final \(ExampleSettings.summary(of: settings))")
} catch {
    say(role, "error: \(error)")
    exit(1)
}
