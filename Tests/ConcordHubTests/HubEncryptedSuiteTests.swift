import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// An encrypted suite through the hub: the hub stores and merges its sealed records by version
/// without a key, hands them back byte for byte, and holds no name or value of it in any table.
@Suite("Hub sync: an encrypted suite", .offThePool)
struct HubEncryptedSuiteTests {
    static let markerValue = "marker-value-5d0c81e7"
    static let markerKey = "marker-key-b39f2a64"

    /// A store at `path` of `fx` holding `key` for suite "secrets" (nil: a replica without it).
    static func store(_ fx: HubFixture, _ name: String, key: EncryptionKey?) throws -> Store {
        var options = Store.Options()
        options.durability = .none // the tests are about what the hub holds, not power loss
        if let key { options.suiteKeys["secrets"] = key }
        return try Store(path: fx.path(name), options: options)
    }

    /// A device "phone" of `fx` holding `key`, with suite "secrets" encrypted with it.
    static func encryptedPhone(_ fx: HubFixture, _ key: EncryptionKey) throws -> Store {
        let phone = try store(fx, "phone", key: key)
        try phone.suite("secrets").encrypt(with: key)
        return phone
    }

    /// The rows of `suite` as the store holds them, unopened, by row key.
    static func storedRows(_ store: Store, suite: String) throws -> [String: [UInt8]] {
        try store.read { r in
            var rows: [String: [UInt8]] = [:]
            try r.scanRecords(suite: suite) { _, key, row in
                rows[key] = row.record.encoded
                return true
            }
            return rows
        }
    }

    @Test(
        "sealed records go through the hub under their row keys and come back byte-identical; a replica without the key relays them to another account, and a key holder there reads and writes everything"
    )
    func keylessReplicaRelaysThroughTheHub() throws {
        let fx = try HubFixture()
        let (alice, bob) = (try fx.account("alice"), try fx.account("bob"))
        let key = EncryptionKey.generate()
        let phone = try Self.encryptedPhone(fx, key)
        try phone.suite("secrets").set(Self.markerValue, forKey: Self.markerKey)
        try phone.suite("secrets").set(1, forKey: "count")
        try phone.suite("secrets").set("gone", forKey: "removed")
        try phone.suite("secrets").remove("removed")
        try phone.suite("prefs").set("dark", forKey: "theme")
        try HubSynchronizer().sync(phone, try Hub(alice.url))

        // The hub holds the suite's rows sealed, under row keys, merged by version only.
        let rows = try fx.admin().execute(
            "SELECT key, sealed, octet_length(value) FROM concord_hub.records WHERE account = $1 AND suite = 'secrets' ORDER BY key",
            [.text(alice.name)])
        #expect(rows.count == 3)
        var kinds: [String] = []
        for row in 0..<rows.count {
            let rowKey = try rows.text(row, 0)
            #expect(rowKey.count == 32 && rowKey.allSatisfy(\.isHexDigit), "\(rowKey)")
            kinds.append(try rows.text(row, 1))
            #expect(try rows.int64(row, 2) >= 40, "the nonce, the sealed name and the tag")
        }
        #expect(kinds.sorted() == ["tombstone", "value", "value"])
        let stats = try HubAdmin(fx.adminURL).stats()
        let use = try #require(stats.perAccount.first { $0.name == alice.name })
        #expect(use.tombstones == 1 && use.usage.keys == 4, "theme, the declaration and two values; a sealed deletion is a tombstone, not a key: \(use)")

        // A backup host without the key: it stores the records as they came and reads none of them.
        let relay = try Self.store(fx, "relay", key: nil)
        try HubSynchronizer().sync(relay, try Hub(alice.url))
        #expect(try relay.suite("secrets").isEncrypted)
        expectError(.suiteKeyMissing) { _ = try relay.suite("secrets").get(Self.markerKey, as: String.self) }
        #expect(try Self.storedRows(relay, suite: "secrets") == Self.storedRows(phone, suite: "secrets"), "byte-identical")
        #expect(try relay.suite("prefs").get("theme", as: String.self) == "dark")

        // It relays them to bob's account, where a key holder reads them, writes, and the write comes back.
        try HubSynchronizer().sync(relay, try Hub(bob.url))
        let laptop = try Self.store(fx, "laptop", key: key)
        try HubSynchronizer().sync(laptop, try Hub(bob.url))
        #expect(try laptop.suite("secrets").get(Self.markerKey, as: String.self) == Self.markerValue)
        #expect(try laptop.suite("secrets").get("count", as: Int.self) == 1)
        #expect(try laptop.suite("secrets").get("removed", as: String.self) == nil)
        try laptop.suite("secrets").set(2, forKey: "count")
        try laptop.suite("secrets").remove(Self.markerKey)
        try HubSynchronizer().sync(laptop, try Hub(bob.url))
        for hub in [bob.url, alice.url] { try HubSynchronizer().sync(relay, try Hub(hub)) }
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        #expect(try phone.suite("secrets").get("count", as: Int.self) == 2)
        #expect(try phone.suite("secrets").get(Self.markerKey, as: String.self) == nil)
        #expect(try phone.suite("secrets").keys() == ["count"])
        #expect(try Self.storedRows(phone, suite: "secrets") == Self.storedRows(laptop, suite: "secrets"))
        #expect(try Self.storedRows(relay, suite: "secrets") == Self.storedRows(laptop, suite: "secrets"))
    }

    @Test(
        "a marker value and key name written to an encrypted suite appear in no column of any hub table, nor in a notification; the same pair in the clear does (the scan can fail)"
    )
    func noHubTableHoldsANameOrValue() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let key = EncryptionKey.generate()
        let phone = try Self.encryptedPhone(fx, key)
        try phone.suite("secrets").set(Self.markerValue, forKey: Self.markerKey)
        try phone.suite("secrets").set("another", forKey: "deleted-" + Self.markerKey)
        try phone.suite("secrets").remove("deleted-" + Self.markerKey)
        try phone.suite("plain").set("plain-value-0e6d", forKey: "plain-key-44b1")
        // A session listening on the account's channel, as a live device does, gets every notification.
        let listener = try fx.admin()
        let channel = try listener.execute("SELECT channel FROM concord_hub.accounts WHERE name = $1", [.text(alice.name)]).text(0, 0)
        try listener.execute("LISTEN \(channel)")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        try phone.suite("secrets").set(Self.markerValue + "-again", forKey: Self.markerKey)
        try HubSynchronizer().sync(phone, try Hub(alice.url))

        let admin = try fx.admin()
        let tables = try admin.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'concord_hub' AND c.relkind IN ('r', 'p')")
        var dump = ""
        for t in 0..<tables.count {
            // Every column of every row as text (bytea as hex, so the markers' bytes in hex too).
            let table = try tables.text(t, 0)
            let rows = try admin.execute("SELECT row_to_json(t)::text FROM concord_hub.\(table) t")
            for row in 0..<rows.count { dump += try rows.text(row, 0) + "\n" }
        }
        var notifications: [PostgresConnection.Notification] = []
        while notifications.count < 2 {
            let (arrived, _) = try listener.waitForNotifications(timeout: 30)
            if arrived.isEmpty { break }
            notifications += arrived
        }
        #expect(notifications.count == 2, "each push notified the channel")
        dump += notifications.map(\.payload).joined(separator: "\n")
        let hex = { (text: String) in text.utf8.map { String(format: "%02x", $0) }.joined() }
        for marker in [Self.markerValue, Self.markerKey] {
            #expect(!dump.contains(marker) && !dump.contains(hex(marker)), "\(marker) is in the hub's tables")
        }
        #expect(dump.contains("plain-key-44b1") && dump.contains(hex("plain-value-0e6d")), "the scan finds what is in the clear")
        #expect(dump.contains("\"secrets\""), "the suite's name stays readable")
    }

    @Test(
        "a sealed byte changed in a hub row by the account's own role is refused as damaged by a key holder, named with its seq, and the pull's other rows merge; a repaired row comes again"
    )
    func tamperedRowIsRefusedAndNamed() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let key = EncryptionKey.generate()
        let phone = try Self.encryptedPhone(fx, key)
        try phone.suite("secrets").set("s3cret", forKey: "token")
        try phone.suite("secrets").set("kept", forKey: "other")
        try phone.suite("prefs").set("dark", forKey: "theme")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        let rowKey = SuiteSealing(suite: "secrets", key: key).rowKey(for: "token")
        let account = try PostgresConnection(ConnectionString(alice.url))
        let changed = try account.execute(
            "UPDATE concord_hub.records SET value = set_byte(value, 30, get_byte(value, 30) # 1) WHERE suite = 'secrets' AND key = $1 RETURNING seq",
            [.text(rowKey)])
        #expect(changed.count == 1)
        let seq = UInt64(try changed.int64(0, 0))

        let laptop = try Self.store(fx, "laptop", key: key)
        let before = try Self.storedRows(laptop, suite: "secrets")
        let report = try HubSynchronizer().sync(laptop, try Hub(alice.url))
        let refused = report.bToA.refused
        #expect(refused.count == 1, "\(refused)")
        #expect(refused.first?.suite == "secrets" && refused.first?.key == rowKey && refused.first?.seq == seq && refused.first?.refusal == .undecodable)
        #expect(refused.first?.message.contains("damaged or forged") == true, "\(refused)")
        // The rule of every refused hub row: it stays out, whole, and the page's sound rows merge.
        #expect(try before.isEmpty && Self.storedRows(laptop, suite: "secrets")[rowKey] == nil)
        #expect(try laptop.suite("secrets").get("other", as: String.self) == "kept")
        #expect(try laptop.suite("secrets").get("token", as: String.self) == nil)
        #expect(try laptop.suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try run("sync-tool", ["check", fx.path("laptop")]).status == 0)

        // The cursor moved past it; the phone's next write of the key replaces the row (its version is newer).
        #expect(try HubSynchronizer().sync(laptop, try Hub(alice.url)).bToA.refused.isEmpty, "reported once")
        try phone.suite("secrets").set("s3cret-2", forKey: "token")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        let again = try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(again.bToA.refused.isEmpty, "\(again.bToA.refused)")
        #expect(try laptop.suite("secrets").get("token", as: String.self) == "s3cret-2")
    }

    @Test(
        "concurrent increments on three devices syncing only through the hub add up, and max and sets converge: the hub keeps each device's sealed contribution, devices join them"
    )
    func policiesConvergeThroughTheHub() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let key = EncryptionKey.generate()
        let counter = "launches-marker-9a4c17"
        let devices = try ["phone", "laptop", "watch"].map { try Self.store(fx, $0, key: key) }
        let first = try devices[0].suite("secrets")
        try first.encrypt(with: key)
        try first.declare(.counter, forKey: counter)
        try first.declare(.set, forKey: "tags")
        try first.declare(.max, forKey: "best")
        func syncAll() throws { for device in devices + devices { try HubSynchronizer().sync(device, try Hub(alice.url)) } }
        try syncAll()
        for (i, device) in devices.enumerated() {
            let secrets = try device.suite("secrets")
            try secrets.increment(counter, by: [1, 10, 100][i])
            try secrets.increment(counter, by: [1, 10, 100][i])
            try secrets.update("tags", as: [String].self) { $0 = ($0 ?? []) + ["tag-\(i)-marker"] }
            try secrets.set([5, 50, 20][i], forKey: "best")
        }
        try syncAll()
        for device in devices {
            let secrets = try device.suite("secrets")
            #expect(try secrets.get(counter, as: Int.self) == 222, "\(device.directory)")
            #expect(try secrets.get("tags", as: [String].self) == ["tag-0-marker", "tag-1-marker", "tag-2-marker"], "\(device.directory)")
            #expect(try secrets.get("best", as: Int.self) == 50, "\(device.directory)")
            #expect(try device.conflicts(suite: "secrets").isEmpty)
        }
        // One sealed contribution per device and key, under the name's row key and the device's id.
        let rows = try fx.admin().execute(
            "SELECT key, sealed FROM concord_hub.records WHERE account = $1 AND suite = 'secrets' ORDER BY key", [.text(alice.name)])
        #expect(rows.count == 9)
        let ids = Set(devices.map(\.replicaID.description))
        for row in 0..<rows.count {
            let rowKey = try rows.text(row, 0)
            #expect(rowKey.count == 64 && ids.contains(String(rowKey.dropFirst(32))), "\(rowKey)")
        }
        let dump = try fx.admin().execute("SELECT row_to_json(t)::text FROM concord_hub.records t")
        let hex = { (text: String) in text.utf8.map { String(format: "%02x", $0) }.joined() }
        for row in 0..<dump.count {
            let text = try dump.text(row, 0)
            for marker in [counter, "tag-1-marker"] { #expect(!text.contains(marker) && !text.contains(hex(marker)), "\(marker) is in the hub's records") }
        }
    }

    @Test(
        "hub gc collects an encrypted suite's sealed tombstones; a key holder offline past the horizon gets the delete in its resync, and nothing deleted comes back"
    )
    func sealedTombstonesAreCollected() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let key = EncryptionKey.generate()
        let phone = try Self.encryptedPhone(fx, key)
        for name in ["a", "b"] { try phone.suite("secrets").set("value \(name)", forKey: name) }
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        let tablet = try Self.store(fx, "tablet", key: key)
        try HubSynchronizer().sync(tablet, try Hub(alice.url)) // the tablet holds a and b, then goes away
        #expect(try tablet.suite("secrets").get("b", as: String.self) == "value b")

        try phone.suite("secrets").remove("b")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        let admin = try HubAdmin(fx.adminURL)
        #expect(try admin.stats().tombstones == 1)
        #expect(try admin.collectTombstones(retention: .milliseconds(0)) == 1, "the sealed deletion is collected")
        let rows = try fx.admin().execute("SELECT count(*) FROM concord_hub.records WHERE suite = 'secrets'").int64(0, 0)
        #expect(rows == 1)

        let report = try HubSynchronizer().sync(tablet, try Hub(alice.url))
        #expect(report.bToA.horizonResync && report.bToA.refused.isEmpty, "\(report.bToA.refused)")
        #expect(try tablet.suite("secrets").get("b", as: String.self) == nil, "the collected delete reaches the tablet")
        #expect(try tablet.suite("secrets").keys() == ["a"])
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        #expect(try phone.suite("secrets").keys() == ["a"], "b is not resurrected")
        try tablet.suite("secrets").set("again", forKey: "b")
        try HubSynchronizer().sync(tablet, try Hub(alice.url))
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        #expect(try phone.suite("secrets").get("b", as: String.self) == "again", "a later write of the key wins over the resync's deletion")
    }
}
