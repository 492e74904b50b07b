import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What happens when LMDB meets a page it cannot use and fails one of its assertions
/// (`Assertion 'IS_LEAF(mp)' failed in mdb_cursor_next()`): LMDB aborts the process then, and nothing
/// can undo that. Before it does, every environment's assertion callback (`mdb_env_set_assert`, set
/// in `CFunctions.swift`) writes one line to standard error naming the directory as damaged and what
/// to do about it — so the process does not die anonymously — and, when the program asked for it,
/// ends the process with an exit code instead of the abort.
///
/// ```swift
/// DamageAssertion.setAdvice { dir in "restore \(dir) from a backup" }
/// DamageAssertion.exitInstead(code: 4, prefix: "mytool: ")
/// ```
package enum DamageAssertion {
    private struct Settings: Sendable {
        var prefix = "Concord: "
        var exitCode: Int32?
        var advice: @Sendable (String) -> String = { _ in "restore it from a backup" }
    }
    private static let settings = Mutex(Settings())

    /// Sets the advice the line ends with for a damaged `directory` (how to recover it).
    package static func setAdvice(_ advice: @escaping @Sendable (String) -> String) {
        settings.withLock { $0.advice = advice }
    }

    /// Makes a failed assertion end the process with `exitCode` after its line (which starts with
    /// `prefix`, the program's name) instead of LMDB's abort: for a command-line tool, whose exit code
    /// says "damaged". A library leaves the abort alone.
    package static func exitInstead(code exitCode: Int32, prefix: String) {
        settings.withLock { s in (s.exitCode, s.prefix) = (exitCode, prefix) }
    }

    /// The line written for a failed assertion `message` in the environment at `directory`.
    package static func line(directory: String, message: String) -> String {
        let s = settings.withLock { $0 }
        return
            "\(s.prefix)the store at \(directory) is damaged: LMDB found a page it cannot use (\(message)), so this process stops; \(s.advice(directory))"
    }

    /// Called by LMDB's assertion callback, just before LMDB aborts.
    static func report(directory: String, message: String) {
        let text = line(directory: directory, message: message) + "\n"
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = write(2, Array(bytes[written...]), bytes.count - written)
            if n <= 0 { break }
            written += n
        }
        if let code = settings.withLock({ $0.exitCode }) { _exit(code) }
    }
}
