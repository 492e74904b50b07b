import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

@Suite("Hub sync: two devices through one account", .offThePool)
struct HubSyncTests {
    @Test("a value set on one device reaches the other; both hold the same record; a delete travels too")
    func twoDevices() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let laptop = try fx.store("laptop")
        try phone.suite("prefs").set("dark", forKey: "theme")
        try laptop.suite("prefs").set(14, forKey: "fontSize")

        let sync = HubSynchronizer()
        let first = try sync.sync(phone, try Hub(alice.url))
        #expect(first.aToB.newEntries == 1 && first.aToB.recordsChanged == 1)
        let second = try sync.sync(laptop, try Hub(alice.url))
        #expect(second.aToB.recordsChanged == 1 && second.bToA.recordsChanged == 1)
        try sync.sync(phone, try Hub(alice.url))
        #expect(try contents(phone) == contents(laptop))
        #expect(try laptop.suite("prefs").get("theme", as: String.self) == "dark")

        try laptop.suite("prefs").remove("theme")
        try sync.sync(laptop, try Hub(alice.url))
        let back = try sync.sync(phone, try Hub(alice.url))
        #expect(back.bToA.recordsChanged == 1)
        #expect(try phone.suite("prefs").get("theme", as: String.self) == nil)
        #expect(try contents(phone) == contents(laptop))

        // In sync: a dry run on either device finds nothing to do, and a sync moves nothing.
        #expect(try sync.sync(phone, try Hub(alice.url), dryRun: true).isInSync)
        let again = try sync.sync(laptop, try Hub(alice.url))
        #expect(again.aToB.newEntries == 0 && again.bToA.entries == 0)
    }

    @Test(
        "device-local keys never reach the hub (a device that had not seen the declaration pushes one: the others ignore it); expiring values keep their expiry, read absent after it everywhere, and hub gc collects them; status names the hub"
    )
    func deviceLocalAndExpiringKeys() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        var options = Store.Options()
        let clock = ManualClock()
        options.wallClock = clock.read
        let phone = try Store(path: fx.path("phone"), options: options)
        let laptop = try Store(path: fx.path("laptop"), options: options)
        try laptop.suite("app").set("/laptop", forKey: "local.path") // pushed before the laptop knows the key is local
        try HubSynchronizer().sync(laptop, try Hub(alice.url))
        try phone.suite("app").setDeviceLocal(true, forKeysWithPrefix: "local.")
        try phone.suite("app").set("/phone", forKey: "local.path")
        try phone.suite("app").set("abc", forKey: "token", expiresAfter: .seconds(3600))
        let pushed = try HubSynchronizer().sync(phone, try Hub(alice.url))
        #expect(pushed.aToB.newEntries == 2, "the declaration and the token: \(pushed)")
        #expect(pushed.bToA.deviceLocalIgnored == 1, "the laptop's value of the key, on the hub, is ignored by the phone")
        try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(try phone.suite("app").get("local.path", as: String.self) == "/phone")
        #expect(try laptop.suite("app").get("local.path", as: String.self) == "/laptop")
        #expect(try laptop.suite("app").isDeviceLocal("local.path"))
        #expect(try laptop.suite("app").record(forKey: "token") == phone.suite("app").record(forKey: "token"))
        let hub = try PostgresConnection(ConnectionString(fx.adminURL))
        let rows = try hub.execute("SELECT key, expires_ms FROM concord_hub.records WHERE account = $1 AND suite = 'app' ORDER BY key", [.text(alice.name)])
        #expect(rows.count == 2, "the laptop's old push and the token; the phone's local.path never went")
        #expect(try rows.text(1, 0) == "token" && rows.int64(1, 1) == Int64(clock.milliseconds + 3_600_000))

        // The laptop now knows: its new value stays; nothing is pending on either device.
        try laptop.suite("app").set("/laptop2", forKey: "local.path")
        #expect(try HubSynchronizer().sync(laptop, try Hub(alice.url), dryRun: true).aToB.newEntries == 0)
        let status = try laptop.peerStatus()
        #expect(status.count == 1 && status[0].name == "hub \(alice.name)" && status[0].unacknowledged == 0, "\(status)")

        clock.advance(.milliseconds(3_600_000))
        for store in [phone, laptop] { #expect(try store.suite("app").get("token", as: String.self) == nil, "\(store.directory)") }
        let admin = try HubAdmin(fx.adminURL)
        #expect(
            try admin.collectTombstones(retention: .milliseconds(1_000), now: Date(timeIntervalSince1970: Double(clock.milliseconds + 1_000) / 1000)) == 1,
            "the expired token goes")
        #expect(try hub.execute("SELECT 1 FROM concord_hub.records WHERE account = $1 AND key = 'token'", [.text(alice.name)]).count == 0)
    }

    @Test("floats and UUIDs travel through the hub as themselves")
    func nativeFloatsAndUUIDs() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let laptop = try fx.store("laptop")
        let id = UUID()
        try phone.suite("prefs").set(Float(0.1), forKey: "scale")
        try phone.suite("prefs").set([id], forKey: "devices")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(try laptop.suite("prefs").value(forKey: "scale") == .float(0.1))
        #expect(try laptop.suite("prefs").value(forKey: "devices") == .array([.uuid(id)]))
        #expect(try contents(phone) == contents(laptop))
    }

    @Test("concurrent writes of one key: the greater version wins on the hub and on both devices; the loser is in the conflict log")
    func concurrentWrites() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let laptop = try fx.store("laptop")
        try phone.suite("prefs").set("from phone", forKey: "theme")
        try laptop.suite("prefs").set("from laptop", forKey: "theme")
        let sync = HubSynchronizer()
        try sync.sync(phone, try Hub(alice.url))
        let r = try sync.sync(laptop, try Hub(alice.url))
        try sync.sync(phone, try Hub(alice.url))
        let a = try phone.suite("prefs").record(forKey: "theme")!
        let b = try laptop.suite("prefs").record(forKey: "theme")!
        #expect(a == b)
        // The device that met the other's write on the hub logged the loss once; the other device,
        // whose record the hub had merged already, logs nothing (as in peer sync, where they meet).
        #expect(r.aToB.conflicts.count == 1)
        let logged = try phone.conflicts() + laptop.conflicts()
        #expect(logged.count == 1)
        let conflict = try #require(logged.first)
        #expect(conflict.key == "theme" && conflict.winner == a)
        #expect(Set([try conflict.winner.value(), try conflict.loser.value()]) == [.string("from phone"), .string("from laptop")])
    }

    @Test("--suite: a sync limited to some suites moves only them, and a later full sync carries the rest without skipping any")
    func suiteSelection() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let laptop = try fx.store("laptop")
        try phone.suite("prefs").set("dark", forKey: "theme")
        try phone.suite("ui").set(2, forKey: "columns")
        let prefsOnly = HubSynchronizer(selection: try SyncSelection(suites: ["prefs"]))
        #expect(try prefsOnly.sync(phone, try Hub(alice.url)).aToB.newEntries == 1)
        try prefsOnly.sync(laptop, try Hub(alice.url))
        #expect(try laptop.suiteNames() == ["prefs"])
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(try contents(laptop) == contents(phone))
    }

    @Test("a dry run writes nothing on either side and says what a sync would do")
    func dryRun() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let laptop = try fx.store("laptop")
        try phone.suite("prefs").set("dark", forKey: "theme")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        try laptop.suite("prefs").set(12, forKey: "size")
        let before = try contents(laptop)
        let plan = try HubSynchronizer().sync(laptop, try Hub(alice.url), dryRun: true)
        #expect(plan.dryRun && plan.aToB.newEntries == 1 && plan.aToB.recordsChanged == 1 && plan.bToA.recordsChanged == 1 && !plan.isInSync)
        #expect(try contents(laptop) == before)
        #expect(try HubAdmin(fx.adminURL).stats().rows == 1)
    }
}
