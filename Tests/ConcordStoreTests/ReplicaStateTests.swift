import Foundation
import TestSupport
import Testing

@testable import Concord

/// The clock and last seq live in the journal's last entry (format 4), and in `meta/state` only when
/// that entry does not carry them: they never go back, whatever a transaction did to the journal.
@Suite struct ReplicaStateTests {
    @Test func droppingTheLastJournalEntryDoesNotGiveItsSeqOutAgain() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.set(1, forKey: "a")
        try suite.set(2, forKey: "b")
        try suite.remove("b")
        #expect(try store.lastSeq() == 3)
        try store.write { try $0.dropTombstone(suite: "app", key: "b") } // the journal's last entry goes
        #expect(try store.journalEntries(after: 0).map(\.seq) == [1])
        #expect(try store.lastSeq() == 3, "the last seq stays, though no entry carries it")
        try suite.set(3, forKey: "c")
        #expect(try store.journalEntries(after: 0).map(\.seq) == [1, 4])
        #expect(try store.integrityReport().isSound)
    }

    @Test func aClockMovedWithoutAJournalEntryIsKept() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.set(1, forKey: "a")
        let seen = (HybridClock.wallMilliseconds() + 60_000) << 16 // a peer a minute ahead, within the drift bound
        let skewed = try store.write { $0.observeRemote(hlc: seen, maxDriftMilliseconds: store.options.maxClockDriftMilliseconds) }
        #expect(skewed == false)
        #expect(try store.read { $0.clock } == seen, "kept though the transaction journaled nothing")
        let version = try #require(try suite.set(2, forKey: "b"))
        #expect(version.hlc > seen)
        #expect(try store.read { $0.clock } == version.hlc, "and the journal's new last entry carries the clock again")
    }
}
