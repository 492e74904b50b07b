import Dispatch
import Foundation
import Synchronization

/// Watches an exclusive choice for the lease this process holds and calls the handler when this
/// process stops holding it: on every change of the key, and at the lease's expiry.
final class LeaseLossWatch<Choice: StorableValue & Hashable>: Sendable {
    private let choice: ExclusiveChoice<Choice>
    private let handler: @Sendable (Lease<Choice>) -> Void
    private struct State {
        var held: Lease<Choice>?
        var timer: DispatchSourceTimer?
        var stopped = false
    }
    private let state = Mutex(State())

    private init(_ choice: ExclusiveChoice<Choice>, _ handler: @escaping @Sendable (Lease<Choice>) -> Void) {
        self.choice = choice
        self.handler = handler
    }

    static func start(_ choice: ExclusiveChoice<Choice>, _ handler: @escaping @Sendable (Lease<Choice>) -> Void) throws -> ObservationToken {
        let watch = LeaseLossWatch(choice, handler)
        watch.check()
        let token = try choice.reference.suite.observe(choice.reference.key) { [watch] _ in watch.check() }
        return ObservationToken { [watch] in
            token.cancel()
            watch.stop()
        }
    }

    /// Compares the lease this process held with the one that counts now; tells of a loss, and
    /// sets the timer for the expiry of the lease held now.
    func check() {
        let now = choice.currentLease.flatMap { $0.isHeldByThisProcess ? $0 : nil }
        let lost = state.withLock { s -> Lease<Choice>? in
            guard !s.stopped else { return nil }
            let lost = now == nil ? s.held : nil
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

    private func clock() -> UInt64 { choice.reference.suite.store.options.wallClock() }

    func stop() {
        state.withLock { s in
            s.stopped = true
            s.timer?.cancel()
            s.timer = nil
        }
    }
}
