import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

@Suite("Hub accounts are isolated by roles and row-level security", .offThePool)
struct HubIsolationTests {
    @Test("account A's credentials asking for B get a clear error and none of B's rows, and cannot write B's")
    func rowLevelSecurity() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let bob = try fx.account("bob")
        let bobsPhone = try fx.store("bob-phone")
        try bobsPhone.suite("prefs").set("bob's secret", forKey: "token")
        try HubSynchronizer().sync(bobsPhone, try Hub(bob.url))

        #expect(throws: ConcordError.accountNotVisible(account: bob.name, role: alice.name)) { try Hub(alice.url, account: bob.name) }

        let asAlice = try PostgresConnection(ConnectionString(alice.url))
        #expect(try asAlice.execute("SELECT count(*) FROM concord_hub.records WHERE account = $1", [.text(bob.name)]).int64(0, 0) == 0)
        #expect(try asAlice.execute("SELECT count(*) FROM concord_hub.records").int64(0, 0) == 0)
        #expect(try asAlice.execute("SELECT name FROM concord_hub.accounts").count == 1)
        #expect(try asAlice.execute("UPDATE concord_hub.accounts SET last_seq = 0 WHERE name = $1", [.text(bob.name)]).affected == 0)
        do {
            try asAlice.execute(
                """
                INSERT INTO concord_hub.records (account, suite, key, version, value, seq, pushed_by)
                VALUES ($1, 'prefs', 'token', $2, NULL, 99, $3)
                """, [.text(bob.name), .bytea([UInt8](repeating: 0xff, count: 24)), .bytea([UInt8](repeating: 1, count: 16))])
            Issue.record("alice wrote a row into bob's account")
        } catch {
            #expect(error.sqlState == "42501", "row-level security refuses it: \(error)")
        }
        #expect(throws: PostgresError.self) { try asAlice.execute("DELETE FROM concord_hub.records") }

        // Bob's data is untouched and still reaches bob's other device.
        let bobsLaptop = try fx.store("bob-laptop")
        try HubSynchronizer().sync(bobsLaptop, try Hub(bob.url))
        #expect(try bobsLaptop.suite("prefs").get("token", as: String.self) == "bob's secret")
        // Alice's devices sync and see none of it.
        let alicesPhone = try fx.store("alice-phone")
        let report = try HubSynchronizer().sync(alicesPhone, try Hub(alice.url))
        #expect(report.bToA.entries == 0)
        #expect(try alicesPhone.suiteNames().isEmpty)
    }

    @Test("SQL-looking suite names, keys and values are stored as data and come back byte for byte")
    func sqlLookingNames() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let laptop = try fx.store("laptop")
        let suites = ["x--DROP-TABLE-concord_hub.records", "prefs"]
        let keys = [
            "'); DROP TABLE concord_hub.records; --", "$1", "\\x00'::bytea", "\" OR 1=1 --", "😀'; SELECT pg_sleep(10); --",
            "Robert'); DELETE FROM concord_hub.accounts WHERE ('1'='1"
        ]
        for suite in suites {
            for (i, key) in keys.enumerated() { try phone.suite(suite).set("'; TRUNCATE concord_hub.accounts; -- \(i)", forKey: key) }
        }
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(try contents(laptop) == contents(phone))
        #expect(try contents(laptop).count == suites.count * keys.count)
        let stats = try HubAdmin(fx.adminURL).stats()
        #expect(stats.accounts == 1 && stats.rows == suites.count * keys.count)
    }

    @Test("a wrong password is refused as unreachable, and neither the password nor the URL's password shows in the error")
    func wrongPasswordIsRedacted() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let bad = fx.server.url(database: fx.database, user: alice.name, password: "hunter2-not-it")
        do {
            _ = try Hub(bad)
            Issue.record("logged in with a wrong password")
        } catch let error as ConcordError {
            #expect(error.code == .unreachable)
            #expect(!error.description.contains("hunter2-not-it"))
            #expect(error.description.contains("***"), "the URL is shown redacted: \(error)")
        }
        #expect(ConnectionString("postgresql://u:s3cr%40t@h/db?sslmode=require").description == "postgresql://u:***@h/db?sslmode=require")
        #expect(ConnectionString("host=h password='a b c' user=u").description == "host=h password=*** user=u")
        #expect(ConnectionString("postgresql://u@h/db?password=zzzzz&x=1").description == "postgresql://u@h/db?password=***&x=1")
    }
}
