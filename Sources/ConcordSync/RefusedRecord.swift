import ConcordStore

/// A record from outside that `RecordGate` refused, named by where it was (its suite, key and seq in
/// the journal or hub it came from) and what was wrong with it.
///
/// ```swift
/// import ConcordHub
///
/// let report = try HubSynchronizer().sync(store, hub)
/// for refused in report.pulled.refused { print(refused) }   // app/"theme" (seq 42): its value is …
/// ```
public struct RefusedRecord: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong with a refused record.
    public enum Problem: Sendable, Equatable {
        /// The suite name breaks the store's rules.
        case suiteName
        /// The key breaks the store's rules (empty, too long, holding U+0000, not UTF-8).
        case key
        /// The value is larger than the store's limit.
        case valueSize
        /// The value or policy state does not decode: the bytes are damaged.
        case undecodable
        /// The value or policy state is plausibly a newer Concord's (a type tag or policy just past
        /// the newest this one knows): upgrading would read it.
        case writtenByNewerConcord
        /// A version no honest clock produces (past the end of the year 9999).
        case version
    }

    /// The suite the record was in (as sent; possibly not a valid name).
    public let suite: String
    /// The record's key (as sent).
    public let key: String
    /// Its seq in the journal (or hub) it came from.
    public let seq: UInt64
    /// What was wrong.
    public let problem: Problem
    /// What was wrong, for a person.
    public let reason: String

    /// A refusal of the record at `suite`/`key`, seq `seq`, for `problem`, explained by `reason`.
    public init(suite: String, key: String, seq: UInt64, problem: Problem, reason: String) {
        self.suite = suite
        self.key = key
        self.seq = seq
        self.problem = problem
        self.reason = reason
    }

    public var description: String { "\(SyncBundle.quoted(suite))/\(SyncBundle.quoted(key)) (seq \(seq)): \(reason)" }

    /// Up to `limit` refusals on one line: `"3 rows refused: a/b (seq 1): …; …"` (`noun` names what
    /// was refused, `verb` what happened to it).
    package static func line(_ refused: [RefusedRecord], noun: String, verb: String = "refused", limit: Int = 10) -> String {
        let shown = refused.prefix(limit).map(\.description).joined(separator: "; ")
        let more = refused.count > limit ? "; and \(refused.count - limit) more" : ""
        return "\(refused.count) \(noun)\(refused.count == 1 ? "" : "s") \(verb): \(shown)\(more)"
    }
}
