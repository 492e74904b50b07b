import Foundation
import Synchronization

/// Where errors go that nothing can throw to: a non-throwing setter of a wrapper (`name = "Ada"`),
/// or an observation that ended because the journal could not be read and was given no `onError`.
/// A program installs its handler with ``ConcordError/setUnhandledErrorHandler(_:)``.
package enum UnhandledErrors {
    private static let handler = Mutex<@Sendable (any Error & Sendable) -> Void>(UnhandledErrors.writeToStandardError)

    /// Replaces the handler (for the whole process).
    package static func setHandler(_ newHandler: @escaping @Sendable (any Error & Sendable) -> Void) {
        handler.withLock { $0 = newHandler }
    }

    /// Puts the default handler back.
    package static func resetHandler() {
        handler.withLock { $0 = writeToStandardError }
    }

    /// Hands `error` to the current handler.
    @usableFromInline package static func report(_ error: any Error & Sendable) {
        let current = handler.withLock { $0 }
        current(error)
    }

    /// The default handler: one line on standard error.
    @Sendable package static func writeToStandardError(_ error: any Error & Sendable) {
        FileHandle.standardError.write(Data("concord: \(error)\n".utf8))
    }
}

extension ConcordError {
    /// Replaces, for the whole process, the handler of errors that nothing can throw to: a
    /// non-throwing setter of a wrapper (`name = "Ada"`, `suite[key] = value`), or an observation that
    /// ended because the journal could not be read and was given no `onError`.
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
    /// ConcordError.setUnhandledErrorHandler { error in logger.error("\(error)") }
    /// ```
    ///
    /// - Parameter handler: Called with each such error, on the thread that met it.
    public static func setUnhandledErrorHandler(_ handler: @escaping @Sendable (any Error & Sendable) -> Void) {
        UnhandledErrors.setHandler(handler)
    }

    /// Puts the default handler of errors nothing can throw to back: one line on standard error.
    ///
    /// ```swift
    /// ConcordError.resetUnhandledErrorHandler()
    /// ```
    public static func resetUnhandledErrorHandler() { UnhandledErrors.resetHandler() }
}
