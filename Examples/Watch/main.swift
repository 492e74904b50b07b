// The "watch": a replica of its own (its own directory), kept in sync with the app's replica.
// A `Synchronizer` runs whenever either replica commits a change that did not come from this sync
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

/// Syncs the two replicas on a serial queue; requests that arrive while a sync runs make one more.
final class SyncLoop: Sendable {
    let phone: Store, watch: Store
    private let queue = DispatchQueue(label: "example.watch.sync")
    private let pending = Mutex(false)

    init(phone: Store, watch: Store) {
        self.phone = phone
        self.watch = watch
    }

    /// Waits until the sync under way, if any, has finished.
    func drain() {
        queue.sync {}
    }

    func request() {
        let schedule = pending.withLock { p -> Bool in
            defer { p = true }
            return !p
        }
        guard schedule else { return }
        queue.async { [self] in
            pending.withLock { $0 = false }
            do {
                let report = try Synchronizer().sync(phone, watch)
                let sent = report.aToB.entries, received = report.bToA.entries
                if sent + received > 0 { say(role, "synced: \(sent) change(s) to the watch, \(received) to the phone") }
            } catch {
                say(role, "sync failed: \(error)")
            }
        }
    }
}

do {
    let phone = try Store(path: CommandLine.arguments[1])
    let watch = try Store(path: CommandLine.arguments[2])
    let settings = try watch.suite(ExampleSettings.suiteName)
    let loop = SyncLoop(phone: phone, watch: watch)

    // A change a sync merged is already on both sides: only other changes need a sync.
    let wake: @Sendable (Change) -> Void = { change in
        if case .sync = change.origin { return }
        loop.request()
    }
    let phoneToken = try phone.observe(wake)
    let watchToken = try watch.observe(wake)

    let finished = DispatchSemaphore(value: 0)
    let edited = Atomic(false)
    let token = try settings.observe { change in
        guard case .sync = change.origin else { return }
        if change.key == ExampleSettings.finished.name { finished.signal(); return }
        say(role, "\(change.key) arrived: \(describe(change.effectiveValue))")
        // The watch's user finds 14 pt too small: a local edit, which syncs back to the phone.
        if change.key == ExampleSettings.fontSize.name, change.value == .int(14), !edited.exchange(true, ordering: .relaxed) {
            settings[ExampleSettings.fontSize] = 16
            say(role, "set fontSize to 16")
        }
    }

    try settings.update(ExampleSettings.launches) { $0 += 1 }
    say(role, "launched; launches here: \(settings[ExampleSettings.launches])")
    loop.request()
    say(role, "ready")

    if !settings[ExampleSettings.finished] && finished.wait(timeout: .now() + timeout) == .timedOut {
        say(role, "gave up after \(Int(timeout)) s: the app never finished")
        exit(1)
    }
    for t in [token, phoneToken, watchToken] { t.cancel() }
    loop.drain()
    say(role, "final \(ExampleSettings.summary(of: settings))")
} catch {
    say(role, "error: \(error)")
    exit(1)
}
