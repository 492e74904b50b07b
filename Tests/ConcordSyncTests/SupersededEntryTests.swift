import Concord
import Foundation
import TestSupport
import Testing

/// A delta never sends a superseded record: the entry a rewrite supersedes stays in the journal
/// (format 8) until compaction, and every read passes over it, so a peer receives each key's latest
/// record once, in commit order.
@Suite struct SupersededEntryTests {
    @Test func aPullSendsEachKeysLatestRecordOnceInCommitOrder() throws {
        let laptop = try Store.temporary()
        let phone = try Store.temporary()
        let prefs = try laptop.suite("prefs")
        try prefs.set("light", forKey: "theme")
        try prefs.set(12, forKey: "size")
        try prefs.set("dark", forKey: "theme")
        try prefs.set(14, forKey: "size")
        try prefs.set("blue", forKey: "accent")
        #expect(try laptop.statistics().supersededJournalEntries == 2)
        let report = try Synchronizer().pull(from: laptop, into: phone)
        let read = report.journalEntriesRead
        #expect(read == 3, "journal entries read: the superseded ones are passed over")
        #expect(report.entries == 3)
        #expect(try phone.suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try phone.suite("prefs").get("size", as: Int.self) == 14)
        let merged = try phone.journalEntries(after: 0)
        #expect(merged.map(\.key) == ["theme", "size", "accent"], "in the laptop's commit order")
        #expect(try merged.map { try $0.record.value() } == [.string("dark"), .int(14), .string("blue")])
        // A rewrite after the sync: only it travels, and the entry it superseded (already sent) stays passed over.
        try prefs.set("sepia", forKey: "theme")
        let again = try Synchronizer().pull(from: laptop, into: phone)
        let readAgain = again.journalEntriesRead
        #expect(readAgain == 1 && again.entries == 1)
        #expect(try phone.suite("prefs").get("theme", as: String.self) == "sepia")
        #expect(try laptop.integrityReport().isSound)
        #expect(try phone.integrityReport().isSound)
    }
}
