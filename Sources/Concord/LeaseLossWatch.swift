import Dispatch
import Foundation
import Synchronization

/// Watches an exclusive choice for the lease this process holds and calls the handler when this
/// process stops holding it: on every change of the key, and at the lease's expiry.
///
/// Changes of one key can reach an observer coalesced (a grant and the release right after it arrive
/// as the release alone), so a lease this process grants is also handed to its watches directly,
/// after the commit: the watch knows what was held even when it never observed it.
final class LeaseLossWatch<Choice: StorableValue & Hashable>: Sendable {
    private let choice: Exclusive<Choice>
    private let handler: @Sendable (Lease<Choice>) -> Void
    private struct State {
        var held: Lease<Choice>?
        /// The version of the last lease whose loss was told, so a late `hold` does not tell it twice.
        var lostVersion: Version?
        var timer: DispatchSourceTimer?
        var stopped = false
    }
    private let state = Mutex(State())

    private init(_ choice: Exclusive<Choice>, _ handler: @escaping @Sendable (Lease<Choice>) -> Void) {
        self.choice = choice
        self.handler = handler
    }

    static func start(_ choice: Exclusive<Choice>, _ handler: @escaping @Sendable (Lease<Choice>) -> Void) throws -> ObservationToken {
        let watch = LeaseLossWatch(choice, handler)
        watch.check()
        let token = try choice.reference.suite.changes(for: choice.reference.key).start { [watch] _ in watch.check() }
        let identity = LeaseWatches.identity(choice.reference)
        LeaseWatches.add(watch, for: identity)
        return ObservationToken { [watch] in
            token.cancel()
            watch.stop()
            LeaseWatches.remove(watch, for: identity)
        }
    }

    /// Tells this process's watches of `choice`'s key that it now holds `lease` (called after the commit).
    static func granted(_ lease: Lease<Choice>, by choice: Exclusive<Choice>) {
        for watch in LeaseWatches.watches(for: LeaseWatches.identity(choice.reference)) {
            (watch as? LeaseLossWatch<Choice>)?.hold(lease)
        }
    }

    /// Notes that this process holds `lease`, unless a later check already saw it gone.
    private func hold(_ lease: Lease<Choice>) {
        state.withLock { s in
            guard !s.stopped else { return }
            if let v = lease.version {
                if let held = s.held?.version, held >= v { return } // the watch saw this grant, or a later one
                if let lost = s.lostVersion, lost >= v { return } // …and already told of its loss
            }
            s.held = lease
        }
        check()
    }

    /// Compares the lease this process held with the one that counts now; tells of a loss, and
    /// sets the timer for the expiry of the lease held now.
    func check() {
        let now = choice.currentLease.flatMap { $0.isHeldByThisProcess ? $0 : nil }
        let lost = state.withLock { s -> Lease<Choice>? in
            guard !s.stopped else { return nil }
            let lost = now == nil ? s.held : nil
            if let v = lost?.version { s.lostVersion = max(s.lostVersion ?? v, v) }
            s.held = now
            s.timer?.cancel()
            s.timer = nil
            if let expires = now?.expiresMilliseconds {
                let wait = expires > clock() ? expires - clock() : 0
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now() + .milliseconds(Int(min(wait, UInt64(Int.max / 2))) + 1))
                timer.setEventHandler { [weak self] in self?.check() }
                timer.resume()
                s.timer = timer
            }
            return lost
        }
        if let lost { handler(lost) }
    }

    private func clock() -> UInt64 { choice.reference.suite.store.options.clock.read() }

    func stop() {
        state.withLock { s in
            s.stopped = true
            s.timer?.cancel()
            s.timer = nil
        }
    }
}

/// The lease watches of this process, by store directory, suite and key.
private enum LeaseWatches {
    private struct Entry: Sendable { weak var watch: (AnyObject & Sendable)? }
    private static let table = Mutex<[String: [Entry]]>([:])

    static func identity<V>(_ reference: StoredReference<V>) -> String {
        reference.suite.store.directory + "\u{0}" + reference.suite.name + "\u{0}" + reference.key
    }

    static func add(_ watch: AnyObject & Sendable, for identity: String) {
        table.withLock { t in t[identity, default: []] = t[identity, default: []].filter { $0.watch != nil } + [Entry(watch: watch)] }
    }

    static func remove(_ watch: AnyObject & Sendable, for identity: String) {
        table.withLock { t in
            t[identity] = t[identity]?.filter { $0.watch != nil && $0.watch !== watch }
            if t[identity]?.isEmpty == true { t[identity] = nil }
        }
    }

    static func watches(for identity: String) -> [AnyObject & Sendable] {
        table.withLock { t in t[identity]?.compactMap(\.watch) ?? [] }
    }
}
