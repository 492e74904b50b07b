import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

@Suite("Hub tombstone collection and the full resync", .offThePool)
struct HubTombstoneTests {
    @Test("a device offline past the horizon gets a full resync: deleted keys stay deleted, its new writes still arrive")
    func resyncAfterCollection() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let old = try fx.store("old-tablet")
        for key in ["a", "b", "c"] { try phone.suite("prefs").set("value \(key)", forKey: key) }
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        try HubSynchronizer().sync(old, try Hub(alice.url)) // the tablet has a, b, c … then goes away
        #expect(try old.suite("prefs").get("b", as: String.self) == "value b")

        try phone.suite("prefs").remove("b")
        try phone.suite("prefs").set("new c", forKey: "c")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        let admin = try HubAdmin(fx.adminURL)
        #expect(try admin.collectTombstones(retentionMilliseconds: 0) == 1)
        let stats = try admin.stats()
        #expect(stats.tombstones == 0 && stats.perAccount.first?.horizonSeq ?? 0 > 0)

        // The tablet wrote while away; it comes back behind the horizon.
        try old.suite("prefs").set("from the tablet", forKey: "d")
        let report = try HubSynchronizer().sync(old, try Hub(alice.url))
        #expect(report.bToA.horizonResync)
        #expect(try old.suite("prefs").get("b", as: String.self) == nil, "the collected delete reaches the tablet")
        #expect(try old.suite("prefs").get("c", as: String.self) == "new c")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        #expect(try phone.suite("prefs").get("b", as: String.self) == nil, "b is not resurrected")
        #expect(try phone.suite("prefs").get("d", as: String.self) == "from the tablet")
        let live = { (s: Store) in try contents(s).filter { !$0.value.isTombstone } }
        #expect(try live(phone) == live(old))
        // Past the horizon now: the next sync is a delta again.
        #expect(try !HubSynchronizer().sync(old, try Hub(alice.url)).bToA.horizonResync)
    }

    @Test("collection keeps tombstones younger than the retention, and devices up to date get no resync")
    func retentionKeepsRecentTombstones() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        try phone.suite("prefs").set(1, forKey: "x")
        try phone.suite("prefs").remove("x")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        let admin = try HubAdmin(fx.adminURL)
        #expect(try admin.collectTombstones(retentionMilliseconds: 3_600_000) == 0)
        #expect(try admin.stats().tombstones == 1)
        #expect(try admin.collectTombstones(retentionMilliseconds: 0) == 1)
        #expect(try !HubSynchronizer().sync(phone, try Hub(alice.url)).bToA.horizonResync, "the phone had merged past the horizon")
    }
}
