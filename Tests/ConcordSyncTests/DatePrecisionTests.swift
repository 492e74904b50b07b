import Concord
import Foundation
import TestSupport
import Testing

/// A `Date` reads back `==` wherever it goes: the store, the journal, a bundle, a sync.
@Suite(.offThePool) struct DatePrecisionTests {
    struct Event: Codable, Equatable, StorableValue {
        var at: Date
        var history: [Date]
    }

    /// Today's dates with sub-microsecond parts: about half of these lost their last bit when dates
    /// were stored as seconds since 1970.
    static func dates(_ n: Int) -> [Date] {
        var g = SeededRandom(seed: 12)
        return (0..<n).map { i in
            i % 2 == 0
                ? Date() + Double(i) * 1e-7
                : Date(timeIntervalSinceReferenceDate: Double.random(in: -3e9...3e9, using: &g))
        }
    }

    @Test func datesRoundTripThroughTheStoreTheJournalBundlesAndSync() throws {
        let tmp = try TemporaryDirectory("dates")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        let c = try Replicas.open(tmp.path("c"))
        let dates = Self.dates(1_000)
        try a.suite("d").batch { batch in
            for (i, date) in dates.enumerated() { try batch.set(date, forKey: "k\(i)") }
            try batch.set(Event(at: dates[0], history: Array(dates.prefix(5))), forKey: "event")
        }
        var mismatches = 0
        for (i, date) in dates.enumerated() where try a.suite("d").get("k\(i)", as: Date.self) != date { mismatches += 1 }
        #expect(mismatches == 0, "through the store")
        let journal = try a.journalEntries(after: 0)
        #expect(
            journal.filter { $0.key.hasPrefix("k") }.allSatisfy { entry in
                (try? entry.record.value()) == .date(dates[Int(entry.key.dropFirst())!])
            }, "through the journal")

        try Synchronizer().sync(a, b)
        let bundle = tmp.path("a.bundle")
        try BundleExchange.export(from: a, since: .beginning, to: bundle)
        try BundleExchange.importBundle(at: bundle, into: c)
        for store in [b, c] {
            var wrong = 0
            for (i, date) in dates.enumerated() where try store.suite("d").get("k\(i)", as: Date.self) != date { wrong += 1 }
            #expect(wrong == 0, "through \(store === b ? "sync" : "a bundle")")
            #expect(
                try store.suite("d").get("event", as: Event.self) == Event(at: dates[0], history: Array(dates.prefix(5))),
                "a Codable value's dates stay exact too")
        }
        #expect(try Replicas.bytes(a) == Replicas.bytes(b) && Replicas.bytes(b) == Replicas.bytes(c))
    }

    @Test func aDateOfTheFirstFormatStillReads() throws {
        // Tag 6, seconds since 1970 as a double: how the first release stored 2026-11-30T10:15:30.123Z.
        var bytes: [UInt8] = [6]
        let seconds = 1_796_033_730.123
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: seconds.bitPattern >> UInt64(shift))) }
        #expect(try ValueCodec.decode(bytes) == .date(Date(timeIntervalSince1970: seconds)))
        // Written again, it takes today's exact form, which reads back to the same date.
        let again = try ValueCodec.encode(.date(Date(timeIntervalSince1970: seconds)))
        #expect(again.first == 10)
        #expect(try ValueCodec.decode(again) == .date(Date(timeIntervalSince1970: seconds)))
    }
}
