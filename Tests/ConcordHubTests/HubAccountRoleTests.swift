import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// An account is only ever a role the hub created for it, with LOGIN and membership of the device
/// role and nothing else; what another account can learn about it.
@Suite("Hub account roles", .offThePool)
struct HubAccountRoleTests {
    @Test("add-account refuses a role that exists (BYPASSRLS, CREATEROLE or plain) with exit 3, changing nothing: attributes, password, memberships")
    func existingRoleIsRefused() throws {
        let fx = try HubFixture()
        let admin = try fx.admin()
        for (suffix, attributes) in [("dave", "BYPASSRLS"), ("erin", "CREATEROLE"), ("fred", "")] {
            let name = fx.prefix + suffix
            try admin.execute("SELECT set_config('concord.pw', 'old-password-1', false)")
            try admin.execute("DO $$ BEGIN EXECUTE format('CREATE ROLE %I LOGIN \(attributes) PASSWORD %L', '\(name)', current_setting('concord.pw')); END $$")
            let refused = try run("sync-tool", ["hub", "add-account", fx.adminURL, name])
            #expect(refused.status == 3, "\(name): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr.contains("exists already") && refused.stderr.contains("nothing changed"), "\(refused.stderr)")
            #expect(!refused.stdout.contains("sees only"), "no claim about what the role sees")
            let role = try admin.execute(
                """
                SELECT rolbypassrls, rolcreaterole, pg_has_role(oid, 'concord_hub_device', 'MEMBER') FROM pg_roles WHERE rolname = $1
                """, [.text(name)])
            #expect(try role.bool(0, 0) == (attributes == "BYPASSRLS") && role.bool(0, 1) == (attributes == "CREATEROLE"))
            #expect(try role.bool(0, 2) == false, "not made a member of the device role")
            #expect(try admin.execute("SELECT count(*) FROM concord_hub.accounts WHERE name = $1", [.text(name)]).int64(0, 0) == 0)
            // The old password still logs in: it was not reset.
            _ = try PostgresConnection(ConnectionString(fx.server.url(database: fx.database, user: name, password: "old-password-1")))
        }
    }

    @Test("init and stats warn about account roles that gained attributes or memberships since, and stop once they are undone")
    func warningsAboutChangedRoles() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let bob = try fx.account("bob")
        let quiet = try run("sync-tool", ["hub", "stats", fx.adminURL])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        let admin = try fx.admin()
        try admin.execute("ALTER ROLE \(alice.name) BYPASSRLS CREATEROLE")
        try admin.execute("GRANT pg_read_all_data TO \(bob.name)")
        let mallory = fx.prefix + "mallory"
        try admin.execute("CREATE ROLE \(mallory) NOLOGIN")
        try admin.execute("GRANT \(alice.name) TO \(mallory)")
        try admin.execute("REVOKE concord_hub_device FROM \(bob.name)")
        for action in ["stats", "init"] {
            let warned = try run("sync-tool", ["hub", action, fx.adminURL])
            #expect(warned.status == 0)
            let lines = warned.stderr.split(separator: "\n").map(String.init)
            #expect(lines.allSatisfy { $0.hasPrefix("warning: ") }, "\(lines)")
            #expect(
                lines.contains { $0.contains(alice.name) && $0.contains("BYPASSRLS") && $0.contains("CREATEROLE") && $0.contains("every account's rows") },
                "\(lines)")
            #expect(lines.contains { $0.contains(bob.name) && $0.contains("pg_read_all_data") })
            #expect(lines.contains { $0.contains(bob.name) && $0.contains("no longer a member of concord_hub_device") })
            #expect(lines.contains { $0.contains(mallory) && $0.contains("act as it") })
        }
        let json = try run("sync-tool", ["hub", "stats", fx.adminURL, "--json"])
        #expect(json.stdout.contains("\"warnings\":[\"account \(alice.name)'s role has BYPASSRLS, CREATEROLE"), "\(json.stdout)")
        try admin.execute("ALTER ROLE \(alice.name) NOBYPASSRLS NOCREATEROLE")
        try admin.execute("REVOKE pg_read_all_data FROM \(bob.name)")
        try admin.execute("REVOKE \(alice.name) FROM \(mallory)")
        try admin.execute("GRANT concord_hub_device TO \(bob.name)")
        #expect(try HubAdmin(fx.adminURL).accountWarnings().isEmpty)
        #expect(try run("sync-tool", ["hub", "stats", fx.adminURL]).stderr.isEmpty)
    }

    @Test("--opaque: the role's name says nothing (what pg_roles and pg_stat_activity show every role), the label stays the operator's")
    func opaqueRoleNames() throws {
        let fx = try HubFixture()
        let bob = try fx.account("bob")
        let added = try run("sync-tool", ["hub", "add-account", fx.adminURL, "Alice Smith <alice@example.com>", "--opaque"])
        #expect(added.status == 0, "\(added.stderr)")
        let role = try #require(added.lines.first { $0.hasPrefix("  role ") }?.split(separator: " ")[1].dropLast()).description
        #expect(role.hasPrefix("acct_") && role.count == 25, "\(role)")
        #expect(!role.contains("alice"))
        let password = try #require(added.lines.first { $0.contains("password:") }?.split(separator: " ").dropFirst().first.map(String.init))
        let url = fx.server.url(database: fx.database, user: role, password: password)
        let phone = try fx.store("phone")
        try phone.suite("prefs").set("dark", forKey: "theme")
        try HubSynchronizer().sync(phone, try Hub(url))
        let stats = try HubAdmin(fx.adminURL).stats()
        #expect(stats.perAccount.first { $0.name == role }?.label == "Alice Smith <alice@example.com>")
        #expect(try run("sync-tool", ["hub", "stats", fx.adminURL]).stdout.contains("\(role) (Alice Smith <alice@example.com>)"))

        // What bob's login sees of the server regardless: every role's name, every connection's role.
        let asAlice = try PostgresConnection(ConnectionString(url))
        let asBob = try PostgresConnection(ConnectionString(bob.url))
        #expect(try asBob.execute("SELECT count(*) FROM pg_roles WHERE rolname = $1", [.text(role)]).int64(0, 0) == 1)
        #expect(try asBob.execute("SELECT count(*) FROM pg_roles WHERE rolname ILIKE '%smith%'").int64(0, 0) == 0)
        let activity = try asBob.execute("SELECT query FROM pg_stat_activity WHERE usename = $1 AND pid = $2", [.text(role), .int8(Int64(asAlice.backendPID))])
        #expect(activity.count == 1, "bob sees that the opaque role is connected")
        #expect(try activity.text(0, 0) == "<insufficient privilege>", "but not what it runs")
        // And the planner's estimate of the whole table's rows, every account's together.
        try fx.admin().execute("ANALYZE concord_hub.records")
        let estimate = try asBob.execute("SELECT reltuples::bigint FROM pg_class WHERE oid = 'concord_hub.records'::regclass")
        #expect(try estimate.int64(0, 0) >= 1, "bob, with no row of his own, sees the table holds rows")
        // The label and the rows are the account's own.
        #expect(try asBob.execute("SELECT label FROM concord_hub.accounts").count == 1)
        #expect(try asBob.execute("SELECT count(*) FROM concord_hub.accounts WHERE label IS NOT NULL").int64(0, 0) == 0)
        #expect(try run("sync-tool", ["hub", "add-account", fx.adminURL, String(repeating: "x", count: 201), "--opaque"]).status == 3)
        #expect(try run("sync-tool", ["hub", "stats", fx.adminURL, "--opaque"]).status == 2)
    }

    @Test("the NOTIFY channel is a secret of the account's row: not the printed hub id, not readable by another account, and its payload names no device")
    func secretChannel() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let bob = try fx.account("bob")
        let phone = fx.path("phone")
        #expect(try run("sync-tool", ["set", phone, "prefs", "theme", "dark"]).status == 0)
        let first = try run("sync-tool", ["sync", phone, alice.url])
        let hub = try Hub(alice.url)
        let channel = try fx.admin().execute("SELECT channel FROM concord_hub.accounts WHERE name = $1", [.text(alice.name)]).text(0, 0)
        #expect(channel.hasPrefix("concord_") && channel.count == 40)
        #expect(channel != "concord_" + hub.replicaID.description)
        #expect(first.stdout.contains(hub.replicaID.description), "sync prints the hub's replica id")
        for output in [first.stdout, first.stderr, try run("sync-tool", ["hub", "stats", fx.adminURL, "--json"]).stdout] {
            #expect(!output.contains(channel.dropFirst("concord_".count)), "the channel is never printed")
        }
        // Bob reads only his own channel, and hears nothing on the one the printed id would have named.
        let asBob = try PostgresConnection(ConnectionString(bob.url))
        let bobs = try asBob.execute("SELECT channel FROM concord_hub.accounts")
        #expect(try bobs.count == 1 && bobs.text(0, 0) != channel)
        try asBob.execute("LISTEN \"concord_\(hub.replicaID.description)\"")
        // Alice's own listener hears each push as the account's last seq alone.
        let asAlice = try PostgresConnection(ConnectionString(alice.url))
        try asAlice.execute("LISTEN \(channel)")
        #expect(try run("sync-tool", ["set", phone, "prefs", "theme", "light"]).status == 0)
        #expect(try run("sync-tool", ["sync", phone, alice.url]).status == 0)
        var heard: [PostgresConnection.Notification] = []
        let deadline = Date().addingTimeInterval(20)
        while heard.isEmpty && Date() < deadline { heard = try asAlice.waitForNotifications(timeout: 1).notifications }
        #expect(heard.map(\.payload) == ["2"], "the payload is the account's last seq, no device id")
        #expect(try asBob.waitForNotifications(timeout: 0.5).notifications.isEmpty, "bob hears nothing")
    }
}
