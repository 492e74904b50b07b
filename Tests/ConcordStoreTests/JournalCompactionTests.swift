import Foundation
import TestSupport
import Testing

@testable import Concord

/// The journal is append-only (format 8): a rewrite leaves the entry it supersedes, no reader sees
/// that entry, and superseded entries are removed in bulk so the journal stays within its bound.
@Suite struct JournalCompactionTests {
    /// The entries the journal holds, superseded ones included (LMDB's count).
    static func storedEntries(_ store: Store) throws -> Int {
        try store.read { try $0.txn.statistics($0.layout.journal).entries }
    }

    @Test func aSupersededEntryStaysButNoReaderListsOrCountsIt() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.set("one", forKey: "a")
        try suite.set(2, forKey: "b")
        try suite.set("three", forKey: "a")
        #expect(try Self.storedEntries(store) == 3, "the rewrite appended, and its superseded entry stays")
        let entries = try store.journalEntries(after: 0)
        #expect(entries.map(\.seq) == [2, 3])
        #expect(entries.map(\.key) == ["b", "a"])
        #expect(try entries.last?.record.value() == .string("three"))
        #expect(try store.journalEntries(after: 0, suite: "app", limit: 1).map(\.seq) == [2], "the limit counts live entries")
        // A program catching up reads the same: each key's latest change, as an observer receives it.
        let changes = try store.changes(after: 0)
        #expect(changes.map(\.seq) == [2, 3] && changes.map(\.key) == ["b", "a"])
        #expect(changes.last?.value == .string("three") && changes.allSatisfy { $0.origin == .thisProcess })
        #expect(try store.changes(after: 2).map(\.key) == ["a"] && store.changes(after: 0, suite: "other").isEmpty)
        expectError(.invalidSuiteName) { _ = try store.changes(after: 0, suite: "") }
        let stats = try store.statistics()
        #expect(stats.journalEntries == 2)
        #expect(stats.supersededJournalEntries == 1)
        #expect(try store.info().journalEntries == 2)
        let check = try store.integrityReport()
        #expect(check.isSound, "\(check.problems)")
        #expect(check.journalEntriesChecked == 2)
        try suite.remove("b")
        #expect(try store.changes(after: 3).map { [$0.key: $0.isDeletion] } == [["b": true]], "a deletion is a change with no value")
    }

    @Test func anEntryNewerThanItsKeysRecordIsDamage() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.set(1, forKey: "a")
        try suite.set(2, forKey: "b")
        // Entry 2 (of b) copied under seq 9: a's row points at 1, b's at 2, and entry 9 claims a later change of b.
        try store.write { w in
            let b = try #require(try w.txn.get(w.layout.journal, StoreLayout.seqKey(2)))
            try w.txn.put(w.layout.journal, StoreLayout.seqKey(9), b)
        }
        let check = try store.integrityReport()
        #expect(check.problems.contains { $0.contains("journal entry 9 (app/b) is newer than its record's entry 2") }, "\(check.problems)")
    }

    /// Three keys rewritten a million times, a thousand rewrites a commit: the journal grows by
    /// appends, is compacted once it outgrows its allowance, and never holds more than twice the
    /// records plus the allowance once a write returns. Readers see three entries throughout.
    @Test func aFewKeysRewrittenAMillionTimesKeepTheJournalWithinItsBound() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let keys = ["a", "b", "c"]
        let perCommit = 1_000
        let bound = 2 * keys.count + JournalCompaction.minimumAllowance
        var written = 0
        var (most, passes, previous) = (0, 0, 0)
        while written < 1_000_000 {
            try suite.batch { b in
                for i in 0..<perCommit { try b.set(written + i, forKey: keys[i % keys.count]) }
            }
            written += perCommit
            let stored = try Self.storedEntries(store)
            #expect(stored <= bound, "after \(written) rewrites the journal holds \(stored) entries")
            if stored < previous { passes += 1 }
            (most, previous) = (max(most, stored), stored)
        }
        #expect(most > JournalCompaction.minimumAllowance - perCommit, "superseded entries accumulate up to the allowance")
        #expect(passes >= 1_000_000 / (JournalCompaction.minimumAllowance + perCommit), "and are removed each time the journal outgrows it")
        let entries = try store.journalEntries(after: 0)
        #expect(entries.map(\.key).sorted() == keys)
        #expect(entries.map(\.seq).max() == 1_000_000)
        #expect(try suite.get("a", as: Int.self) == 999_999)
        #expect(try suite.get("c", as: Int.self) == 999_998)
        let stats = try store.statistics()
        #expect(stats.journalEntries == 3)
        #expect(try store.lastSeq() == 1_000_000)
        #expect(try store.integrityReport().isSound)
    }

    @Test func compactionKeepsTheLastEntryWhichCarriesTheClockAndSeq() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.batch { b in
            for i in 0..<(JournalCompaction.minimumAllowance + 10) { try b.set(i, forKey: "a") }
        }
        let last = try store.lastSeq()
        #expect(try Self.storedEntries(store) == 1, "every superseded entry but the last went, and the last is live")
        try store.write { w in try w.set(.int(0), suite: "app", key: "b") }
        #expect(try store.lastSeq() == last + 1)
        #expect(try store.journalEntries(after: 0).map(\.seq) == [last, last + 1])
    }

    @Test func collectingATombstoneLeavesNoEntryOfItsKey() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.set(1, forKey: "gone")
        try suite.set(2, forKey: "gone")
        try suite.set(1, forKey: "kept")
        try suite.set(3, forKey: "kept")
        try suite.remove("gone")
        #expect(try Self.storedEntries(store) == 5)
        let report = try store.collectTombstones(retention: .milliseconds(0))
        #expect(report.collected == 1)
        #expect(try Self.storedEntries(store) == 1, "the collected key's entries and every superseded one went")
        #expect(try store.journalEntries(after: 0).map(\.key) == ["kept"])
        #expect(try store.lastSeq() == 5, "the last seq stays, kept in meta/state")
        try suite.set(4, forKey: "new")
        #expect(try store.journalEntries(after: 0).map(\.seq) == [4, 6])
        #expect(try store.integrityReport().isSound)
    }
}
