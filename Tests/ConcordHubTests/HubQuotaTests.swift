import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// Per-account limits the database enforces: a push past one is refused whole (exit 6), and the
/// account's own SQL login cannot get past them either.
@Suite("Hub quotas", .offThePool)
struct HubQuotaTests {
    func usage(_ fx: HubFixture, _ account: String) throws -> HubUsage {
        try #require(try HubAdmin(fx.adminURL).stats().perAccount.first { $0.name == account }).usage
    }

    @Test("add-account --max-keys: a push past the limit exits 6 saying so, and changes nothing on the hub or the device; stats shows the use")
    func pushOverQuotaIsRefusedWhole() throws {
        let fx = try HubFixture()
        let added = try run("sync-tool", ["hub", "add-account", fx.adminURL, fx.prefix + "carol", "--max-keys", "5", "--max-bytes", "1K"])
        #expect(added.status == 0, "\(added.stderr)")
        let password = try #require(added.lines.first { $0.contains("password:") }?.split(separator: " ").dropFirst().first.map(String.init))
        let url = fx.server.url(database: fx.database, user: fx.prefix + "carol", password: password)
        let phone = fx.path("phone")
        for k in 0..<4 { #expect(try run("sync-tool", ["set", phone, "prefs", "k\(k)", "v\(k)"]).status == 0) }
        #expect(try run("sync-tool", ["sync", phone, url]).status == 0)

        // Three more keys: 7 of 5. The push is refused whole.
        for k in 4..<7 { #expect(try run("sync-tool", ["set", phone, "prefs", "k\(k)", "v\(k)"]).status == 0) }
        let store = try Store(path: phone)
        let device = try contents(store)
        let cursors = try store.peerCursors()
        let hubBefore = try fx.admin().execute("SELECT count(*), max(seq) FROM concord_hub.records")
        let refused = try run("sync-tool", ["sync", phone, url])
        #expect(refused.status == 6, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("over its quota") && refused.stderr.contains("7 of 5 keys"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
        let hubAfter = try fx.admin().execute("SELECT count(*), max(seq) FROM concord_hub.records")
        #expect(try hubAfter.int64(0, 0) == hubBefore.int64(0, 0) && hubAfter.int64(0, 1) == hubBefore.int64(0, 1), "nothing half-applied")
        #expect(try contents(store) == device && store.peerCursors() == cursors)
        let stored = try fx.admin().execute(
            """
            SELECT (SELECT sum(octet_length(suite) + octet_length(key) + coalesce(octet_length(value), 0)) FROM concord_hub.records)
                 + (SELECT sum(octet_length(device) + octet_length(scope)) FROM concord_hub.devices)
            """
        ).int64(0, 0)
        #expect(try usage(fx, fx.prefix + "carol") == HubUsage(keys: 4, maxKeys: .atMost(5), bytes: stored, maxBytes: .atMost(1024)))

        let stats = try run("sync-tool", ["hub", "stats", fx.adminURL])
        #expect(stats.stdout.contains("4 of 5 keys, \(stored) of 1024 bytes"), "\(stats.stdout)")
        let json = try run("sync-tool", ["hub", "stats", fx.adminURL, "--json"])
        #expect(json.stdout.contains("\"keys\":4,\"max_keys\":5,\"bytes\":\(stored),\"max_bytes\":1024"), "\(json.stdout)")

        // Deleting two keys locally makes the same push fit: 7 set, 2 deleted, 5 live.
        #expect(try run("sync-tool", ["delete", phone, "prefs", "k0"]).status == 0)
        #expect(try run("sync-tool", ["delete", phone, "prefs", "k1"]).status == 0)
        #expect(try run("sync-tool", ["sync", phone, url]).status == 0)
        #expect(try usage(fx, fx.prefix + "carol").keys == 5)
    }

    @Test("the account's own SQL login cannot get past its limits: inserts, updates, device rows, many transactions, concurrent sessions")
    func theDatabaseEnforcesTheLimits() throws {
        let fx = try HubFixture()
        let mallory = try fx.account("mallory", maxKeys: .atMost(10), maxBytes: .atMost(4096))
        let db = try PostgresConnection(ConnectionString(mallory.url))
        let version = [UInt8](repeating: 0x10, count: 24)
        let me = [UInt8](repeating: 7, count: 16)
        func insert(_ keys: Range<Int>, value: [UInt8] = [0, 1]) throws {
            try db.execute(
                """
                INSERT INTO concord_hub.records (account, suite, key, version, value, seq, pushed_by)
                SELECT $1, 'bulk', 'k' || n, $2, $3, n, $4 FROM generate_series($5::bigint, $6::bigint) AS n
                """, [.text(mallory.name), .bytea(version), .bytea(value), .bytea(me), .int8(Int64(keys.lowerBound)), .int8(Int64(keys.upperBound - 1))])
        }
        #expect {
            try ConcordError.rethrowing { try insert(0..<11) }
        } throws: { error in
            code(error) == .overQuota && "\(error)".contains("account \(mallory.name) is over its quota") && "\(error)".contains("it would hold 11 of 10 keys")
        }
        #expect(try usage(fx, mallory.name).keys == 0, "the refused statement counted nothing")
        try insert(0..<10)
        // One key more, in a transaction of its own each time: refused every time.
        for k in 10..<13 {
            do {
                try insert(k..<(k + 1))
                Issue.record("key \(k) went in")
            } catch { #expect((error as? PostgresError)?.sqlState == "CQ001") }
        }
        // Rewriting a row with a large value is growth in bytes.
        do {
            try db.execute(
                "UPDATE concord_hub.records SET value = $1 WHERE account = $2 AND key = 'k1'", [.bytea([UInt8](repeating: 1, count: 5000)), .text(mallory.name)]
            )
            Issue.record("a 5000-byte value went in")
        } catch { #expect(error.sqlState == "CQ001") }
        // Device rows count their id and scope: a flood of them stops at the byte limit.
        do {
            try db.execute(
                """
                INSERT INTO concord_hub.devices (account, device, scope, pushed)
                SELECT $1, uuid_send(gen_random_uuid()), repeat('s', 100), 0 FROM generate_series(1, 100)
                """, [.text(mallory.name)])
            Issue.record("100 device rows of 116 bytes went in")
        } catch { #expect(error.sqlState == "CQ001") }
        // Concurrent sessions race for the last bytes (60 rows of about 102 bytes, 4 KB allowed): the
        // counter row serializes them.
        let url = mallory.url
        let accepted = Collector<Int>()
        let finished = Collector<Int>()
        for t in 0..<6 {
            Thread {
                defer { finished.append(t) }
                guard let session = try? PostgresConnection(ConnectionString(url)) else { return }
                for i in 0..<10 {
                    let ok = try? session.execute(
                        "INSERT INTO concord_hub.devices (account, device, scope, pushed) VALUES (current_user, uuid_send(gen_random_uuid()), $1, 0)",
                        [.text(String(repeating: "x", count: 84) + "\(t)-\(i)")])
                    if ok != nil { accepted.append(1) }
                }
            }.start()
        }
        #expect(finished.wait(for: 6, timeout: 60))
        #expect(accepted.values.count > 10 && accepted.values.count < 60, "\(accepted.values.count) rows went in")
        let use = try usage(fx, mallory.name)
        #expect(use.bytes <= 4096, "\(use)")
        let stored = try fx.admin().execute(
            "SELECT coalesce(sum(octet_length(device) + octet_length(scope)), 0)::bigint FROM concord_hub.devices WHERE account = $1", [.text(mallory.name)]
        ).int64(0, 0)
        let records = try fx.admin().execute(
            "SELECT coalesce(sum(octet_length(suite) + octet_length(key) + coalesce(octet_length(value), 0)), 0)::bigint FROM concord_hub.records WHERE account = $1",
            [.text(mallory.name)]
        ).int64(0, 0)
        #expect(stored + records == use.bytes, "the counter matches what is stored")
    }

    @Test("set-quota below the use: the account can only shrink; init --max-keys sets what new accounts get")
    func loweredLimitsAndDefaults() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        #expect(try usage(fx, alice.name).maxKeys == .atMost(100_000), "the hub's default")
        let phone = try fx.store("phone")
        try phone.suite("prefs").batch { b in for k in 0..<8 { try b.set(k, forKey: "k\(k)") } }
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        let lowered = try run("sync-tool", ["hub", "set-quota", fx.adminURL, alice.name, "--max-keys", "3"])
        #expect(lowered.status == 0 && lowered.stdout.contains("8 of 3 keys") && lowered.stdout.contains("only shrink"), "\(lowered.stdout)")
        try phone.suite("prefs").set(99, forKey: "k8")
        expectError(.overQuota) { try HubSynchronizer().sync(phone, try Hub(alice.url)) }
        try phone.suite("prefs").remove("k8")
        try phone.suite("prefs").remove("k0")
        try phone.suite("prefs").set(100, forKey: "k1")
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        #expect(try usage(fx, alice.name).keys == 7)
        #expect(try run("sync-tool", ["hub", "set-quota", fx.adminURL, alice.name, "--max-keys", "unlimited"]).status == 0)
        #expect(try usage(fx, alice.name).maxKeys == .unlimited)
        #expect(try run("sync-tool", ["hub", "set-quota", fx.adminURL, "nobody_here", "--max-keys", "3"]).status == 3)
        #expect(try run("sync-tool", ["hub", "set-quota", fx.adminURL, alice.name]).status == 2)
        #expect(try run("sync-tool", ["hub", "set-quota", fx.adminURL, alice.name, "--max-bytes", "-1"]).status == 3)
        #expect(try run("sync-tool", ["hub", "add-account", fx.adminURL, fx.prefix + "x", "--max-keys", "1K"]).status == 3)

        let defaults = try run("sync-tool", ["hub", "init", fx.adminURL, "--max-keys", "50", "--max-bytes", "2M"])
        #expect(defaults.status == 0 && defaults.stdout.contains("at most 50 keys and 2097152 bytes"), "\(defaults.stdout)")
        let bob = try fx.account("bob")
        #expect(try usage(fx, bob.name) == HubUsage(keys: 0, maxKeys: .atMost(50), bytes: 0, maxBytes: .atMost(2 << 20)))
        #expect(try usage(fx, alice.name).maxKeys == .unlimited, "accounts that exist keep their limits")
    }

    @Test("devices pushing at once near the limit: the account never ends up past it, and every refused push is refused whole")
    func concurrentPushesNearTheLimit() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice", maxKeys: .atMost(12))
        let stores = try (0..<4).map { try fx.store("d\($0)") }
        for (i, store) in stores.enumerated() {
            try store.suite("prefs").batch { b in for k in 0..<5 { try b.set(k, forKey: "d\(i)-k\(k)") } }
        }
        let outcomes = Collector<String>()
        let url = alice.url
        for store in stores {
            Thread {
                do {
                    try HubSynchronizer().push(store, try Hub(url))
                    outcomes.append("pushed")
                } catch let error as ConcordError {
                    outcomes.append(error.code == .overQuota ? "refused" : "\(error)")
                } catch { outcomes.append("\(error)") }
            }.start()
        }
        #expect(outcomes.wait(for: 4, timeout: 60))
        #expect(outcomes.values.filter { $0 == "pushed" }.count == 2, "\(outcomes.values)")
        #expect(outcomes.values.filter { $0 == "refused" }.count == 2)
        #expect(try usage(fx, alice.name).keys == 10)
        let fresh = try fx.store("fresh")
        try HubSynchronizer().sync(fresh, try Hub(alice.url))
        #expect(try contents(fresh).count == 10, "two whole pushes and nothing of the others")
    }
}

extension ConcordError {
    /// Runs `body`, turning a PostgreSQL error into the hub error it means (`.overQuota` for the quota trigger's).
    static func rethrowing(_ body: () throws -> Void) throws {
        do { try body() } catch let error as PostgresError { throw ConcordError(error) }
    }
}
