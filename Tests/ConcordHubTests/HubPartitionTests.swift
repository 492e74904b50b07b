import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// `hub init --partitions N`: records and devices hash-partitioned by account, on a new hub or moved
/// on an existing one, with row-level security holding on every partition.
@Suite("Hub partitions", .offThePool)
struct HubPartitionTests {
    /// How many partitions `table` has (0: a plain table).
    func partitions(_ table: String, _ db: PostgresConnection) throws -> Int64 {
        try db.execute(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = to_regclass($1)", [.text("concord_hub." + table)]
        ).int64(0, 0)
    }

    /// Every row of records and devices, as text, in a fixed order.
    func dump(_ db: PostgresConnection) throws -> [String] {
        let rows = try db.execute(
            """
            SELECT format('%s|%s|%s|%s|%s|%s|%s|%s', account, suite, key, encode(version, 'hex'), encode(value, 'hex'), seq, encode(pushed_by, 'hex'), policy)
            FROM concord_hub.records
            UNION ALL
            SELECT format('device %s|%s|%s|%s', account, encode(device, 'hex'), scope, pushed) FROM concord_hub.devices
            ORDER BY 1
            """)
        return try (0..<rows.count).map { try rows.text($0, 0) }
    }

    @Test("init --partitions 4 on a new hub creates records and devices as 4 hash partitions; stats says so; init again changes nothing")
    func newHub() throws {
        let server = try SharedPostgres.get()
        let database = "parts_" + UUID().uuidString.prefix(8).lowercased()
        let root = try PostgresConnection(ConnectionString(server.url()))
        try root.execute("CREATE DATABASE \(database)")
        let url = server.url(database: database)
        let created = try run("sync-tool", ["hub", "init", url, "--partitions", "4"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("hub created") && created.stdout.contains("4 hash partitions"))
        let db = try PostgresConnection(ConnectionString(url))
        #expect(try partitions("records", db) == 4 && partitions("devices", db) == 4)
        let strategy = try db.execute("SELECT partstrat::text FROM pg_partitioned_table WHERE partrelid = 'concord_hub.records'::regclass")
        #expect(try strategy.text(0, 0) == "h")
        let again = try run("sync-tool", ["hub", "init", url, "--partitions", "4"])
        #expect(again.status == 0 && again.stdout.contains("nothing changed"), "\(again.stdout)")
        let stats = try run("sync-tool", ["hub", "stats", url])
        #expect(stats.stdout.contains("records and devices in 4 hash partitions by account"), "\(stats.stdout)")
        #expect(try run("sync-tool", ["hub", "init", url, "--partitions", "1"]).status == 3)
        #expect(try run("sync-tool", ["hub", "init", url, "--partitions", "lots"]).status == 3)
        #expect(try run("sync-tool", ["hub", "stats", url, "--partitions", "4"]).status == 2)
    }

    @Test("a device role naming a partition is refused; granted it anyway, it sees only its own rows there")
    func rowLevelSecurityOnPartitions() throws {
        let fx = try HubFixture(layout: .partitioned)
        let alice = try fx.account("alice")
        let bob = try fx.account("bob")
        // Enough accounts' rows that every partition holds some of bob's or others'.
        for (i, who) in [bob, alice].enumerated() {
            let phone = try fx.store("phone\(i)")
            try phone.suite("prefs").batch { b in for k in 0..<20 { try b.set("\(who.name) \(k)", forKey: "k\(k)") } }
            try HubSynchronizer().sync(phone, try Hub(who.url))
        }
        for n in 0..<6 {
            let other = try fx.account("other\(n)")
            let device = try fx.store("other\(n)")
            try device.suite("prefs").set("secret of \(n)", forKey: "token")
            try HubSynchronizer().sync(device, try Hub(other.url))
        }
        let asAlice = try PostgresConnection(ConnectionString(alice.url))
        for p in 0..<4 {
            for table in ["records", "devices"] {
                do {
                    let rows = try asAlice.execute("SELECT account FROM concord_hub.\(table)_p\(p)")
                    Issue.record("alice read \(rows.count) rows of concord_hub.\(table)_p\(p)")
                } catch {
                    #expect(error.sqlState == "42501", "\(table)_p\(p): \(error)")
                }
            }
            do {
                try asAlice.execute(
                    "INSERT INTO concord_hub.records_p\(p) (account, suite, key, version, value, seq, pushed_by) VALUES ($1, 's', 'k', $2, NULL, 1, $3)",
                    [.text(bob.name), .bytea([UInt8](repeating: 1, count: 24)), .bytea([UInt8](repeating: 1, count: 16))])
                Issue.record("alice wrote into partition \(p)")
            } catch {
                #expect(error.sqlState == "42501" || error.sqlState == "23514", "\(error)")
            }
        }
        // An operator's mistake: the partitions granted to the device role. Row-level security still holds.
        let admin = try fx.admin()
        for p in 0..<4 { try admin.execute("GRANT SELECT ON concord_hub.records_p\(p), concord_hub.devices_p\(p) TO concord_hub_device") }
        var seen = 0
        for p in 0..<4 {
            let rows = try asAlice.execute("SELECT DISTINCT account FROM concord_hub.records_p\(p)")
            for r in 0..<rows.count { #expect(try rows.text(r, 0) == alice.name) }
            seen += Int(try asAlice.execute("SELECT count(*) FROM concord_hub.records_p\(p)").int64(0, 0))
            #expect(try asAlice.execute("SELECT count(*) FROM concord_hub.devices_p\(p) WHERE account <> $1", [.text(alice.name)]).int64(0, 0) == 0)
        }
        #expect(seen == 20, "alice sees her 20 rows across the partitions and nothing else")
        let everyone = try admin.execute("SELECT count(DISTINCT account) FROM concord_hub.records").int64(0, 0)
        #expect(everyone == 8)
    }

    @Test("an unpartitioned hub in use is moved to partitions by init --partitions: rows, cursors, limits and security carry over; devices go on by delta")
    func moveAnExistingHub() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice", maxKeys: .atMost(40))
        let bob = try fx.account("bob")
        let phone = try fx.store("phone")
        let laptop = try fx.store("laptop")
        let bobs = try fx.store("bob")
        try phone.suite("prefs").batch { b in for k in 0..<30 { try b.set(k, forKey: "k\(k)") } }
        try phone.suite("prefs").remove("k3")
        try phone.suite("app").declare(.counter, forKey: "launches")
        try phone.suite("app").increment("launches", by: 2)
        try bobs.suite("prefs").set("bob's", forKey: "token")
        for (store, who) in [(phone, alice), (laptop, alice), (bobs, bob)] { try HubSynchronizer().sync(store, try Hub(who.url)) }
        let admin = try fx.admin()
        let before = try dump(admin)
        let usageBefore = try HubAdmin(fx.adminURL).stats().perAccount.map(\.usage)

        let moved = try run("sync-tool", ["hub", "init", fx.adminURL, "--partitions", "8"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.contains("records and devices now in 8 hash partitions"), "\(moved.stdout)")
        #expect(try partitions("records", admin) == 8 && partitions("devices", admin) == 8)
        #expect(try dump(admin) == before, "every row came across as it was")
        #expect(try HubAdmin(fx.adminURL).stats().perAccount.map(\.usage) == usageBefore)
        #expect(try admin.execute("SELECT to_regclass('concord_hub.records_previous') IS NULL").bool(0, 0))

        // Devices go on where they were: the laptop pulls nothing again, then a delta of one change.
        #expect(try HubSynchronizer().sync(laptop, try Hub(alice.url)).bToA.entries == 0)
        try phone.suite("prefs").set("after", forKey: "k0")
        try phone.suite("app").increment("launches")
        let push = try HubSynchronizer().sync(phone, try Hub(alice.url))
        #expect(push.aToB.recordsChanged == 2)
        let pull = try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(pull.bToA.recordsChanged == 2 && !pull.bToA.horizonResync)
        #expect(try contents(laptop) == contents(phone))
        #expect(try laptop.suite("app").get("launches", as: Int.self) == 3)

        // Row-level security, the device role's grants and the limits came with the tables.
        let asAlice = try PostgresConnection(ConnectionString(alice.url))
        #expect(try asAlice.execute("SELECT count(*) FROM concord_hub.records WHERE account = $1", [.text(bob.name)]).int64(0, 0) == 0)
        #expect(throws: PostgresError.self) { try asAlice.execute("SELECT * FROM concord_hub.records_p0") }
        func live() throws -> Int64 {
            try admin.execute("SELECT count(*) FROM concord_hub.records WHERE account = $1 AND value IS NOT NULL", [.text(alice.name)]).int64(0, 0)
        }
        let liveBefore = try live()
        try phone.suite("prefs").batch { b in for k in 100..<120 { try b.set(k, forKey: "k\(k)") } }
        expectError(.overQuota) { try HubSynchronizer().sync(phone, try Hub(alice.url)) }
        let use = try #require(try HubAdmin(fx.adminURL).stats().perAccount.first { $0.name == alice.name }?.usage)
        #expect(try use.keys == liveBefore && live() == liveBefore, "\(use), \(liveBefore) live rows")

        // Moving again, to another count, works the same way.
        let rows = try dump(admin)
        #expect(try run("sync-tool", ["hub", "init", fx.adminURL, "--partitions", "3"]).status == 0)
        #expect(try partitions("records", admin) == 3 && dump(admin) == rows)
        #expect(try HubSynchronizer().sync(bobs, try Hub(bob.url)).bToA.entries == 0)
    }
}
