import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

@Suite("Hub schema upgrades", .offThePool)
struct HubUpgradeTests {
    @Test(
        "a version-2 hub with accounts and rows upgrades to 3 (and on to the current one): each account gets its own secret channel, the default limits and its use as stored; devices sync on"
    )
    func fromVersion2() throws {
        let server = try SharedPostgres.get()
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased()
        let root = try PostgresConnection(ConnectionString(server.url()))
        try root.execute("CREATE DATABASE up_\(id)")
        let adminURL = server.url(database: "up_\(id)")
        let admin = try PostgresConnection(ConnectionString(adminURL))
        try HubAdmin(adminURL).createSchema(asOfVersion: 2)
        // Two accounts as a version-2 hub made them, with rows and a device each.
        for name in ["alice", "bob"] {
            let role = "up\(id)_\(name)"
            try admin.execute("CREATE ROLE \(role) LOGIN PASSWORD 'pw-\(id)'")
            try admin.execute("GRANT concord_hub_device TO \(role)")
            try admin.execute("INSERT INTO concord_hub.accounts (name, last_seq) VALUES ($1, 3)", [.text(role)])
            for (seq, k, value) in [(1, "a", Value.string("first")), (2, "b", .int(2)), (3, "gone", nil)] {
                let writer = ReplicaID.random()
                let record = try Record(version: Version(hlc: UInt64(Date().timeIntervalSince1970 * 1000) << 16, replica: writer), value: value)
                let version = (0..<8).map { UInt8(truncatingIfNeeded: record.version.hlc >> (56 - 8 * $0)) } + writer.bytes
                try admin.execute(
                    "INSERT INTO concord_hub.records (account, suite, key, version, value, seq, pushed_by) VALUES ($1, 'prefs', $2, $3, $4, $5, $6)",
                    [
                        .text(role), .text(k), .bytea(version), record.valueBytes.map(PostgresValue.bytea) ?? .null, .int8(Int64(seq)),
                        .bytea([UInt8](repeating: 9, count: 16))
                    ])
            }
            try admin.execute(
                "INSERT INTO concord_hub.devices (account, device, scope, pushed) VALUES ($1, $2, '', 3)",
                [.text(role), .bytea([UInt8](repeating: 9, count: 16))])
        }
        expectError(.hubNotInitialized) { try HubAdmin(adminURL).stats() }

        let upgraded = try run("sync-tool", ["hub", "init", adminURL])
        #expect(upgraded.status == 0 && upgraded.stdout.contains("upgraded from schema version 2 to 6"), "\(upgraded.stdout) \(upgraded.stderr)")
        let rows = try admin.execute("SELECT name, channel, keys_used, bytes_used, max_keys, max_bytes FROM concord_hub.accounts ORDER BY name")
        #expect(rows.count == 2)
        #expect(try rows.text(0, 1) != rows.text(1, 1), "each account has a channel of its own")
        for r in 0..<2 {
            let stored = try admin.execute(
                """
                SELECT (SELECT sum(octet_length(suite) + octet_length(key) + coalesce(octet_length(value), 0)) FROM concord_hub.records WHERE account = $1)
                     + (SELECT sum(octet_length(device) + octet_length(scope)) FROM concord_hub.devices WHERE account = $1)
                """, [.text(try rows.text(r, 0))]
            ).int64(0, 0)
            #expect(try rows.text(r, 1).hasPrefix("concord_") && rows.text(r, 1).count == 40)
            #expect(try rows.int64(r, 2) == 2 && rows.int64(r, 3) == stored && stored > 16)
            #expect(try rows.int64(r, 4) == 100_000 && rows.int64(r, 5) == 64 << 20)
        }
        // The accounts' devices sync on through the upgraded hub, with the counters kept up.
        let alice = "up\(id)_alice"
        let tmp = try TemporaryDirectory("up")
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone"))
        try phone.suite("prefs").set("new", forKey: "c")
        let url = server.url(database: "up_\(id)", user: alice, password: "pw-\(id)")
        try HubSynchronizer().sync(phone, try Hub(url))
        let stats = try HubAdmin(adminURL).stats()
        let use = try #require(stats.perAccount.first { $0.name == alice }?.usage)
        #expect(use.keys == 3)
        #expect(try phone.suite("prefs").get("a", as: String.self) == "first" && phone.suite("prefs").get("gone", as: String.self) == nil)
        #expect(try run("sync-tool", ["hub", "init", adminURL]).stdout.contains("nothing changed"))
    }

    @Test(
        "a version-5 hub upgrades to 6 and then holds an encrypted suite's sealed records, counting a sealed deletion as a tombstone; a hub newer than this client is refused before anything is pushed"
    )
    func fromVersion5() throws {
        let server = try SharedPostgres.get()
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased()
        try PostgresConnection(ConnectionString(server.url())).execute("CREATE DATABASE up_\(id)")
        let adminURL = server.url(database: "up_\(id)")
        let admin = try PostgresConnection(ConnectionString(adminURL))
        try HubAdmin(adminURL).createSchema(asOfVersion: 5)
        expectError(.hubNotInitialized, "a version-5 hub is not current") { _ = try HubAdmin(adminURL).stats() }
        let upgraded = try run("sync-tool", ["hub", "init", adminURL])
        #expect(upgraded.status == 0 && upgraded.stdout.contains("upgraded from schema version 5 to 6"), "\(upgraded.stdout) \(upgraded.stderr)")

        let alice = "up\(id)_alice"
        try HubAdmin(adminURL).addAccount(alice, password: "pw-\(id)")
        let url = server.url(database: "up_\(id)", user: alice, password: "pw-\(id)")
        let tmp = try TemporaryDirectory("up")
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone"))
        try phone.suite("prefs").set("before", forKey: "theme")
        let key = EncryptionKey.generate()
        try phone.suite("secrets").encrypt(with: key)
        try phone.suite("secrets").set("s3cret", forKey: "token")
        try phone.suite("secrets").set("old", forKey: "stale")
        try phone.suite("secrets").remove("stale")
        try HubSynchronizer().sync(phone, try Hub(url))
        let use = try admin.execute("SELECT keys_used FROM concord_hub.accounts WHERE name = $1", [.text(alice)]).int64(0, 0)
        #expect(use == 3, "theme, the declaration and token; the sealed deletion is no key")
        var keyed = Store.Options()
        keyed.suiteKeys["secrets"] = key
        let laptop = try Store(path: tmp.path("laptop"), options: keyed)
        try HubSynchronizer().sync(laptop, try Hub(url))
        #expect(try laptop.suite("secrets").get("token", as: String.self) == "s3cret")
        #expect(try laptop.suite("prefs").get("theme", as: String.self) == "before")

        // A hub upgraded past this client (as this one is past a version-5 client): refused, nothing pushed.
        try admin.execute("UPDATE concord_hub.meta SET schema_version = schema_version + 1")
        try phone.suite("secrets").set("newer", forKey: "token")
        let seq = try admin.execute("SELECT last_seq FROM concord_hub.accounts WHERE name = $1", [.text(alice)]).int64(0, 0)
        expectError(.newerHubSchema) { try HubSynchronizer().sync(phone, try Hub(url)) }
        #expect(try admin.execute("SELECT last_seq FROM concord_hub.accounts WHERE name = $1", [.text(alice)]).int64(0, 0) == seq)
    }
}
