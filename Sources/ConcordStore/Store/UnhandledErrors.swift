import Foundation
import Synchronization

/// Where errors go that nothing can throw to: a non-throwing setter of a wrapper (`name = "Ada"`),
/// or an observation that ended because the journal could not be read and was given no `onError`.
///
/// Such errors are never only printed: the default handler writes them to standard error, and
/// wrappers also keep them as the key's `lastError`. Install your own to log them, show them, or
/// fail a test.
///
/// <!-- assume:
/// struct Logger { func error(_ message: String) {} }
/// let logger = Logger()
/// -->
/// ```swift
/// UnhandledErrors.setHandler { error in logger.error("\(error)") }
/// ```
public enum UnhandledErrors {
    private static let handler = Mutex<@Sendable (any Error & Sendable) -> Void>(UnhandledErrors.writeToStandardError)

    /// Replaces the handler (for the whole process).
    public static func setHandler(_ newHandler: @escaping @Sendable (any Error & Sendable) -> Void) {
        handler.withLock { $0 = newHandler }
    }

    /// Puts the default handler back.
    public static func resetHandler() {
        handler.withLock { $0 = writeToStandardError }
    }

    /// Hands `error` to the current handler.
    @usableFromInline package static func report(_ error: any Error & Sendable) {
        let current = handler.withLock { $0 }
        current(error)
    }

    /// The default handler: one line on standard error.
    @Sendable public static func writeToStandardError(_ error: any Error & Sendable) {
        FileHandle.standardError.write(Data("concord: \(error)\n".utf8))
    }
}
