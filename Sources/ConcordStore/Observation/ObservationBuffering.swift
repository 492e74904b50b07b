/// How many undelivered elements an observation keeps for a consumer that falls behind (an async
/// sequence, or delivery on an actor); beyond that, the oldest are dropped. Chosen per consumer
/// with ``ValueObservation/buffering(_:)``.
///
/// ```swift
/// for try await theme in suite.values(of: "theme", as: String.self).buffering(.latest) { apply(theme) }
/// for try await change in store.changes().buffering(.bounded(100)) { print(change.seq, change.key) }
/// ```
public enum ObservationBuffering: Hashable, Sendable {
    /// Only the newest undelivered element: a slow consumer gets the latest value, not each one.
    case latest
    /// At most this many undelivered elements (at least 1), dropping the oldest beyond them.
    case bounded(Int)
    /// Every element, however far the consumer falls behind (its memory grows with the backlog).
    case unbounded
}
