import Foundation
import Synchronization

/// How far one long operation (a sync, an export or import, a backup) has come: `done` of `total`
/// units of `phase`. Pass a handler as the operation's `onProgress`; it is called on the
/// operation's threads (a backup's from a thread watching the copy too), one call at a time and at
/// most every 50 ms, with `done` never going back within a phase, and last with `done == total`
/// when the phase completes (not when it fails). Keep it quick: the operation waits for it.
///
/// ```swift
/// try store.backup(to: "/var/backups/settings", compact: true) { p in
///     print("\(p.phase): \(p.done)/\(p.total) \(p.unit)")
/// }
/// ```
public struct WorkProgress: Sendable, Hashable {
    /// What the operation is doing: `"sync"`, `"push"`, `"pull"`, `"export"`, `"import"`, `"backup"`.
    public let phase: String
    /// Units done so far.
    public let done: Int
    /// Units in all: the real count (changes to merge or send, records in the bundle, bytes of the copy).
    public let total: Int
    /// What is counted: `"changes"`, `"records"` or `"bytes"`.
    public let unit: String

    /// A progress value; `done` is held to `0...total`.
    public init(phase: String, done: Int, total: Int, unit: String) {
        self.phase = phase
        self.total = max(0, total)
        self.done = min(max(0, done), self.total)
        self.unit = unit
    }

    /// Whether the phase is complete.
    public var isComplete: Bool { done == total }
}

/// A handler of `WorkProgress` updates, as the long operations take it.
package typealias ProgressHandler = @Sendable (WorkProgress) -> Void

/// Reports one phase's progress to a handler: at most one update per `interval` (and per
/// `step` units), the first and the completing one always, `done` never going back.
package final class ProgressMeter: Sendable {
    private let handler: ProgressHandler?
    private let phase: String
    private let unit: String
    private let interval: Duration
    private let state: Mutex<(total: Int, done: Int, last: ContinuousClock.Instant?, finished: Bool)>

    package init(_ handler: ProgressHandler?, phase: String, total: Int, unit: String, interval: Duration = .milliseconds(50)) {
        self.handler = handler
        self.phase = phase
        self.unit = unit
        self.interval = interval
        state = Mutex((total, 0, nil, false))
    }

    /// Whether anyone listens (callers may skip counting when not).
    package var isActive: Bool { handler != nil }

    /// The phase has `done` units done (clamped to the total; less than before is ignored). The
    /// handler is called under the meter's lock, so updates from two threads (a copy's size watched
    /// beside the copy) reach it one at a time and in order.
    package func update(_ done: Int) {
        guard let handler else { return }
        let now = ContinuousClock.now
        state.withLock { s in
            guard !s.finished, done > s.done || done >= s.total || s.last == nil else { return }
            s.done = min(max(done, s.done), s.total)
            if let last = s.last, now - last < interval, s.done < s.total { return }
            s.last = now
            if s.done == s.total { s.finished = true }
            handler(WorkProgress(phase: phase, done: s.done, total: s.total, unit: unit))
        }
    }

    /// The phase is complete: one last update with `done == total` (once).
    package func finish() {
        guard handler != nil else { return }
        update(state.withLock { $0.total })
    }

    /// The phase is complete with `total` units (the real count, known only at the end: the bytes a
    /// compacted copy took): one last update with `done == total`.
    package func finish(total: Int) {
        guard handler != nil else { return }
        state.withLock { s in
            if !s.finished { (s.total, s.done) = (max(total, 0), min(s.done, max(total, 0))) }
        }
        finish()
    }
}
