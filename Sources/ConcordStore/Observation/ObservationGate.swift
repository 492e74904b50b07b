import Synchronization

/// One consumer's side of an observation: orders an observation of values' first element (read on
/// the delivery queue after subscribing) before the changes, drops the changes it already reflects,
/// turns changes into elements, and ends the observation once — cancelled, or with an error.
///
/// Every call but `cancel()` comes on the change hub's delivery queue, one at a time, so the
/// consumer's callbacks run outside the lock, in order.
final class ObservationGate<Element: Sendable>: Sendable {
    private struct State {
        /// The seq the first element reflects; nil until it was delivered.
        var initialSeq: UInt64?
        /// Changes that came before the first element.
        var held: [Change] = []
        var ended = false
        /// Unsubscribes from the hub; nil until subscribed.
        var unsubscribe: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>
    private let transform: @Sendable (Change) throws -> Element
    private let yield: @Sendable (Element) -> Void
    private let finish: @Sendable (ConcordError) -> Void

    init(
        waitsForInitial: Bool, transform: @escaping @Sendable (Change) throws -> Element, yield: @escaping @Sendable (Element) -> Void,
        finish: @escaping @Sendable (ConcordError) -> Void
    ) {
        var initial = State()
        if !waitsForInitial { initial.initialSeq = 0 }
        state = Mutex(initial)
        self.transform = transform
        self.yield = yield
        self.finish = finish
    }

    /// Sets what ending unsubscribes; when the observation already ended, unsubscribes now.
    func onEnd(_ unsubscribe: @escaping @Sendable () -> Void) {
        let ended = state.withLock { s -> Bool in
            if !s.ended { s.unsubscribe = unsubscribe }
            return s.ended
        }
        if ended { unsubscribe() }
    }

    /// Reads and delivers the first element, then the changes held while waiting for it that it
    /// does not reflect.
    func deliverInitial(_ read: () throws -> (Element, seq: UInt64)) {
        guard !state.withLock({ $0.ended }) else { return }
        let first: (Element, seq: UInt64)
        do { first = try read() } catch {
            fail(ConcordError.wrapping(error))
            return
        }
        yield(first.0)
        let held = state.withLock { s -> [Change] in
            s.initialSeq = first.seq
            defer { s.held = [] }
            return s.held
        }
        for change in held where Self.isNews(change, after: first.seq) {
            guard send(change) else { return }
        }
    }

    /// A change from the hub.
    func deliver(_ change: Change) {
        let now = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            guard let seq = s.initialSeq else {
                s.held.append(change)
                return false
            }
            return Self.isNews(change, after: seq)
        }
        if now { _ = send(change) }
    }

    /// Ends the observation with `error` (once).
    func fail(_ error: ConcordError) {
        guard end() else { return }
        finish(error)
    }

    /// Ends the observation without an error.
    func cancel() { _ = end() }

    /// An expiry has no journal seq of its own (its change carries its record's): it is always news.
    private static func isNews(_ change: Change, after seq: UInt64) -> Bool {
        change.seq > seq || change.origin == .expired
    }

    /// Delivers the element `change` makes; false when making it failed and ended the observation.
    private func send(_ change: Change) -> Bool {
        let element: Element
        do { element = try transform(change) } catch {
            fail(ConcordError.wrapping(error))
            return false
        }
        guard !state.withLock({ $0.ended }) else { return false }
        yield(element)
        return true
    }

    /// Marks the observation ended and unsubscribes; false when it had ended already.
    private func end() -> Bool {
        let (first, unsubscribe) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
            defer {
                s.ended = true
                s.unsubscribe = nil
                s.held = []
            }
            return (!s.ended, s.unsubscribe)
        }
        unsubscribe?()
        return first
    }
}
