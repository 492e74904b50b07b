import Synchronization

/// Keeps an observation alive: it stops when `cancel()` is called or the token is released.
///
/// ```swift
/// let token = try suite.changes(for: "theme").start { change in print(change.effectiveValue as Any) }
/// token.cancel()
/// ```
public final class ObservationToken: Sendable {
    private let cancelAction: Mutex<(@Sendable () -> Void)?>

    package init(cancel: @escaping @Sendable () -> Void) { cancelAction = Mutex(cancel) }

    /// Stops delivery; calling it again does nothing.
    public func cancel() {
        let action = cancelAction.withLock { a -> (@Sendable () -> Void)? in
            defer { a = nil }
            return a
        }
        action?()
    }

    deinit { cancel() }
}
