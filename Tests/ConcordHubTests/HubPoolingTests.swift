import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import TestSupport
import Testing

/// The hub through a real PgBouncer (Debian's): one-shot syncs in transaction mode with fewer server
/// connections than devices; live sync in session mode, and a clear refusal in transaction mode.
@Suite("Hub through PgBouncer", .offThePool)
struct HubPoolingTests {
    @Test(
        "transaction mode, a pool of 2: 8 devices syncing at once, each round its own connection, all succeed and converge; the server never serves the account more than 2 connections"
    )
    func oneShotSyncsInTransactionMode() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let pooler = try ScratchPgBouncer(fx.server, mode: .transaction, poolSize: 2)
        defer { pooler.destroy() }
        let url = pooler.url(database: fx.database, user: alice.name, password: alice.password)
        let devices = 8
        let stores = try (0..<devices).map { try fx.store("d\($0)") }
        try stores[0].suite("app").declare(.counter, forKey: "syncs")
        for store in stores { try HubSynchronizer().sync(store, try Hub(url)) } // the declaration reaches every device
        let done = Collector<String>()
        let admin = try fx.admin()
        var most: Int64 = 0
        for (i, store) in stores.enumerated() {
            Thread {
                do {
                    for round in 0..<3 {
                        try store.suite("prefs").set("\(i).\(round)", forKey: "from\(i)")
                        try store.suite("app").increment("syncs")
                        try HubSynchronizer().sync(store, try Hub(url))
                    }
                    done.append("ok")
                } catch { done.append("device \(i): \(error)") }
            }.start()
        }
        while done.values.count < devices {
            let n = try admin.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = $1", [.text(alice.name)]).int64(0, 0)
            most = max(most, n)
            usleep(2_000)
        }
        #expect(done.values == Array(repeating: "ok", count: devices))
        #expect(most >= 1 && most <= 2, "the server served alice \(most) connections at most")
        for store in stores { try HubSynchronizer().sync(store, try Hub(url)) }
        let expected = try contents(stores[0])
        for (i, store) in stores.enumerated() {
            #expect(try contents(store) == expected, "device \(i)")
            #expect(try store.suite("prefs").get("from\(devices - 1 - i)", as: String.self) == "\(devices - 1 - i).2")
        }
        #expect(try stores[0].suite("app").get("syncs", as: Int.self) == 3 * devices)
        #expect(pooler.log.contains("login attempt"), "the syncs went through the pooler")
    }

    @Test("live sync through transaction mode fails with a message naming session mode; sync --watch exits 3 saying so")
    func liveSyncRefusesTransactionMode() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let pooler = try ScratchPgBouncer(fx.server, mode: .transaction, poolSize: 2)
        defer { pooler.destroy() }
        let url = pooler.url(database: fx.database, user: alice.name, password: alice.password)
        let store = try fx.store("phone")
        #expect {
            _ = try HubLivePeer(store: store, url: url)
        } throws: { error in
            code(error) == .transactionPooling && "\(error)".contains("session mode")
        }
        let watch = try ChildProcess("sync-tool", ["sync", fx.path("watched"), url, "--watch"])
        let result = watch.wait(timeout: 60)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("transaction mode") && result.stderr.contains("session mode"), "\(result.stderr)")
        // One-shot syncs through the same pooler work.
        try store.suite("prefs").set(1, forKey: "x")
        #expect(try HubSynchronizer().sync(store, try Hub(url)).aToB.recordsChanged == 1)
    }

    @Test("live sync through session mode: announcements arrive, a change reaches the other device live")
    func liveSyncInSessionMode() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let pooler = try ScratchPgBouncer(fx.server, mode: .session, poolSize: 4)
        defer { pooler.destroy() }
        let url = pooler.url(database: fx.database, user: alice.name, password: alice.password)
        let phone = try fx.store("phone")
        let watch = try fx.store("watch")
        let connected = Collector<String>()
        let live = try LiveSync(store: watch, heartbeat: 600, onEvent: { if case .connected = $0 { connected.append("up") } }) {
            try HubLivePeer(store: watch, url: url)
        }
        defer { live.stop() }
        #expect(connected.wait(for: 1, timeout: 30), "\(live.state)")
        try phone.suite("prefs").set("dark", forKey: "theme")
        try HubSynchronizer().sync(phone, try Hub(url))
        // The heartbeat is 10 minutes: only the announcement can bring it this soon.
        let deadline = Date().addingTimeInterval(30)
        while try watch.suite("prefs").get("theme", as: String.self) != "dark" && Date() < deadline { usleep(10_000) }
        #expect(try watch.suite("prefs").get("theme", as: String.self) == "dark", "\(live.state)")
        #expect(live.state.lastError == nil)
    }
}
