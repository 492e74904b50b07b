import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import Synchronization
import TestSupport
import Testing

/// PostgreSQL's own high availability under the hub: a primary with a streaming standby (made with
/// `pg_basebackup -R`), devices on a multi-host URI that picks whichever server accepts writes.
@Suite("Hub failover", .serialized, .offThePool)
struct HubFailoverTests {
    /// A device that writes a new key and syncs once, in a loop, counting the syncs that returned.
    final class Pusher: @unchecked Sendable {
        let store: Store
        let name: String
        let url: String
        /// Syncs that returned (the device was told its changes were pushed): keys name-0 … name-(acked-1) are pushed.
        let acked = Atomic<Int>(0)
        let frozen = Atomic<Bool>(false)
        let stopped = Atomic<Bool>(false)
        let firstAfterFreeze = Mutex<Date?>(nil)
        let done = Collector<Int>()

        init(store: Store, name: String, url: String) {
            (self.store, self.name, self.url) = (store, name, url)
        }

        func start() {
            Thread { [self] in
                var written = 0
                while !stopped.load(ordering: .acquiring) {
                    if frozen.load(ordering: .acquiring) {
                        usleep(5_000)
                        continue
                    }
                    do {
                        if written == acked.load(ordering: .acquiring) {
                            try store.suite("prefs").set("value \(written)", forKey: "\(name)-\(written)")
                            written += 1
                        }
                        try HubSynchronizer().sync(store, try Hub(url))
                        acked.store(written, ordering: .releasing)
                        firstAfterFreeze.withLock { if $0 == nil { $0 = Date() } }
                    } catch {
                        usleep(20_000)
                    }
                }
                done.append(written)
            }.start()
        }
    }

    @Test(
        "synchronous standby: devices push and live-sync, the primary is killed mid-push and the standby promoted; every acknowledged push is on the new primary, devices carry on by themselves, and all converge"
    )
    func synchronousStandbyLosesNothing() throws {
        let primary = try ScratchPostgres()
        defer { primary.destroy() }
        let fx = try HubFixture(server: primary)
        let alice = try fx.account("alice")
        let standby = try primary.makeStandby(synchronous: true)
        defer { standby.destroy() }
        let url = ScratchPostgres.multiHostURL([primary, standby], database: fx.database, user: alice.name, password: alice.password)
        let adminURL = ScratchPostgres.multiHostURL([primary, standby], database: fx.database)

        let before = try run("sync-tool", ["hub", "stats", adminURL])
        #expect(before.stdout.contains("hub at \(primary.adminUser)@127.0.0.1:\(primary.port)/\(fx.database) (primary)"), "\(before.stdout)")
        let onStandby = try run("sync-tool", ["hub", "stats", standby.url(database: fx.database)])
        #expect(onStandby.status == 0 && onStandby.stdout.contains(":\(standby.port)/\(fx.database) (standby, read-only)"), "\(onStandby.stdout)")

        // Two live devices writing all along, two devices pushing one key per sync.
        let events = Collector<String>()
        let live = try (0..<2).map { i -> (Store, LiveSync) in
            let store = try fx.store("live\(i)")
            let sync = try LiveSync(
                store: store, heartbeat: 1, maxBackoff: 0.5,
                onEvent: { e in if case .disconnected = e { events.append("live\(i) disconnected") } }
            ) { try HubLivePeer(store: store, url: url) }
            return (store, sync)
        }
        defer { for (_, l) in live { l.stop() } }
        let writing = Atomic<Bool>(true)
        let liveWrites = Collector<Int>()
        for (i, (store, _)) in live.enumerated() {
            Thread {
                var n = 0
                while writing.load(ordering: .acquiring) {
                    _ = try? store.suite("live").set(n, forKey: "live\(i)")
                    n += 1
                    usleep(15_000)
                }
                liveWrites.append(n)
            }.start()
        }
        let pushers = try (0..<2).map { Pusher(store: try fx.store("pusher\($0)"), name: "p\($0)", url: url) }
        for p in pushers { p.start() }
        let deadline = Date().addingTimeInterval(60)
        while pushers.contains(where: { $0.acked.load(ordering: .acquiring) < 5 }) && Date() < deadline { usleep(10_000) }
        #expect(pushers.allSatisfy { $0.acked.load(ordering: .acquiring) >= 5 })

        // A push whose transaction is open when the primary dies: its device is never told it was pushed.
        let cut = try fx.store("cut")
        try cut.suite("bulk").batch { b in for k in 0..<200 { try b.set(k, forKey: "k\(k)") } }
        let cutHub = try Hub(url)
        let batch = try DeltaReader.read(from: cut, for: cutHub.replicaID, alreadyMerged: .none).batch
        try cutHub.db.execute("BEGIN")
        _ = try HubPush.pushInOpenTransaction(batch, to: cutHub)

        primary.stop(.immediate)
        let killed = Date()
        for p in pushers { p.frozen.store(true, ordering: .releasing) }
        let acknowledged = pushers.map { $0.acked.load(ordering: .acquiring) }
        #expect(throws: PostgresError.self) { try cutHub.db.execute("COMMIT") }
        try standby.promote()

        // Before any device can push again: every push a device was told of is on the new primary.
        let newPrimary = try PostgresConnection(ConnectionString(standby.url(database: fx.database)))
        for (p, count) in zip(pushers, acknowledged) {
            let rows = try newPrimary.execute(
                "SELECT count(*) FROM concord_hub.records WHERE account = $1 AND suite = 'prefs' AND key LIKE $2",
                [.text(alice.name), .text(p.name + "-%")])
            #expect(try rows.int64(0, 0) >= Int64(count), "\(p.name): \(count) acknowledged")
            for k in 0..<count {
                let found = try newPrimary.execute(
                    "SELECT 1 FROM concord_hub.records WHERE account = $1 AND suite = 'prefs' AND key = $2", [.text(alice.name), .text("\(p.name)-\(k)")])
                #expect(found.count == 1, "\(p.name)-\(k) was acknowledged and is on the new primary")
            }
        }
        #expect(try newPrimary.execute("SELECT count(*) FROM concord_hub.records WHERE suite = 'bulk'").int64(0, 0) == 0, "the cut push is not there")
        let after = try run("sync-tool", ["hub", "stats", adminURL])
        #expect(after.stdout.contains("hub at \(primary.adminUser)@127.0.0.1:\(standby.port)/\(fx.database) (primary)"), "\(after.stdout)")

        for p in pushers {
            p.firstAfterFreeze.withLock { $0 = nil }
            p.frozen.store(false, ordering: .releasing)
        }
        let resumed = Date().addingTimeInterval(60)
        while pushers.contains(where: { $0.firstAfterFreeze.withLock { $0 } == nil }) && Date() < resumed { usleep(10_000) }
        let recovered = pushers.compactMap { $0.firstAfterFreeze.withLock { $0 } }.max()
        #expect(recovered != nil, "the pushers push again")
        print("failover: kill to first successful push \(String(format: "%.2f", (recovered ?? Date()).timeIntervalSince(killed))) s")
        let moreDeadline = Date().addingTimeInterval(60)
        while zip(pushers, acknowledged).contains(where: { $0.acked.load(ordering: .acquiring) < $1 + 3 }) && Date() < moreDeadline { usleep(10_000) }

        // Stop writing; everything anyone wrote reaches every device.
        writing.store(false, ordering: .releasing)
        for p in pushers { p.stopped.store(true, ordering: .releasing) }
        #expect(liveWrites.wait(for: 2) && pushers.allSatisfy { $0.done.wait(for: 1) })
        try HubSynchronizer().sync(cut, try Hub(url))
        let fresh = try fx.store("fresh")
        let stores = [cut, fresh] + pushers.map(\.store)
        var expected: [SuiteKey: Record] = [:]
        let converged = Date().addingTimeInterval(90)
        repeat {
            for store in stores { try HubSynchronizer().sync(store, try Hub(url)) }
            expected = try contents(fresh)
            if try live.allSatisfy({ try contents($0.0) == expected }) && stores.allSatisfy({ try contents($0) == expected }) { break }
            usleep(50_000)
        } while Date() < converged
        #expect(expected.count == 200 + 2 + pushers.reduce(0) { $0 + $1.done.values[0] })
        for (i, (store, sync)) in live.enumerated() {
            #expect(try contents(store) == expected, "live device \(i) converged by itself: \(sync.state)")
            #expect(sync.state.connection == .connected)
        }
        for store in stores { #expect(try contents(store) == expected) }
        #expect(events.values.contains("live0 disconnected") && events.values.contains("live1 disconnected"))
    }

    @Test(
        "asynchronous standby that stops receiving: a push the primary acknowledged is lost by the failover; the first device that meets the promoted standby finds it, every device converges, and the lost push is back on the hub"
    )
    func asynchronousStandbyLosesAPushThatComesBack() throws {
        let primary = try ScratchPostgres()
        defer { primary.destroy() }
        let fx = try HubFixture(server: primary)
        let alice = try fx.account("alice")
        let standby = try primary.makeStandby(synchronous: false)
        defer { standby.destroy() }
        let url = ScratchPostgres.multiHostURL([primary, standby], database: fx.database, user: alice.name, password: alice.password)
        func sync(_ device: String, _ extra: [String] = []) throws -> ProcessResult {
            let result = try run("sync-tool", ["sync", fx.path(device), url] + extra)
            #expect(result.status == 0, "sync \(device): \(result.stderr)")
            return result
        }
        func set(_ device: String, _ key: String, _ value: String) throws {
            let result = try run("sync-tool", ["set", fx.path(device), "app", key, value])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let restoredLine = "B (the hub) was restored from an earlier state"

        // Three devices write and sync; the standby replays all of it.
        for i in 1...3 {
            for device in ["d1", "d2", "d3"] {
                try set(device, "\(device)-\(i)", "\(i)")
                _ = try sync(device)
            }
        }
        for device in ["d1", "d2", "d3"] { _ = try sync(device) }
        let written = try primary.psql(["SELECT pg_current_wal_lsn()"], database: fx.database).trimmingCharacters(in: .whitespacesAndNewlines)
        let caughtUp = Date().addingTimeInterval(60)
        while try standby.psql(["SELECT pg_last_wal_replay_lsn() >= '\(written)'::pg_lsn"]).trimmingCharacters(in: .whitespacesAndNewlines) != "t",
            Date() < caughtUp
        {
            usleep(20_000)
        }

        // The standby stops receiving: asynchronous, it is not waited for, and falls behind.
        try standby.psql(["ALTER SYSTEM SET primary_conninfo = ''", "SELECT pg_reload_conf()"])
        let detached = Date().addingTimeInterval(60)
        while try primary.psql(["SELECT count(*) FROM pg_stat_replication"]).trimmingCharacters(in: .whitespacesAndNewlines) != "0", Date() < detached {
            usleep(20_000)
        }
        // Device 1 pushes, the primary acknowledges it, device 2 pulls it; device 1 pushes once more.
        try set("d1", "lost", "acknowledged by the primary")
        let pushed = try json(try sync("d1", ["--json"]))
        #expect(pushed["pushed"] as? Int == 1 && pushed["hub_rows_changed"] as? Int == 1, "\(pushed)")
        let pulled = try json(try sync("d2", ["--json"]))
        #expect(pulled["records_changed_a"] as? Int == 1, "\(pulled)")
        try set("d1", "lost2", "acknowledged too, pulled by no one")
        let pushedAgain = try json(try sync("d1", ["--json"]))
        #expect(pushedAgain["hub_rows_changed"] as? Int == 1, "\(pushedAgain)")
        let onStandby = try standby.psql(["SELECT count(*) FROM concord_hub.records WHERE key LIKE 'lost%'"], database: fx.database)
        #expect(onStandby.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the standby never received the pushes")

        // Failover: the primary dies, the standby is promoted; the hub has gone back in time.
        primary.stop(.immediate)
        try standby.promote()
        func onHub(_ key: String) throws -> Bool {
            try standby.psql(["SELECT count(*) FROM concord_hub.records WHERE key = '\(key)'"], database: fx.database)
                .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        // Device 2 pulled seqs the promoted hub lacks: the first sync that meets it finds it, and its full
        // push brings back what it holds of the lost history.
        let second = try sync("d2")
        #expect(second.lines.filter { $0.hasPrefix(restoredLine) && $0.contains("resending everything both ways") }.count == 1, "\(second.stdout)")
        #expect(try onHub("lost"), "the push device 1 lost is back on the hub, from device 2")
        // Device 1's cursor on the hub never moved past its own pushes, and the hub's cursor on it went
        // back with the hub: whether or not it finds the restore, its push brings back what only it holds.
        _ = try sync("d1")
        #expect(try onHub("lost2"), "the push only device 1 held is back on the hub")
        // Device 3 synced before the lost pushes: its claims hold, and it pushes Z with seqs the lost
        // history had handed out already.
        try set("d3", "Z", "3")
        let third = try sync("d3")
        #expect(!third.stdout.contains("restored"), "device 3's cursors are true of the promoted hub: \(third.stdout)")

        // Everyone converges; the next syncs are deltas and say nothing of a restore.
        for device in ["d2", "d1", "d3"] { _ = try sync(device) }
        for device in ["d3", "d2", "d1"] {
            let again = try sync(device)
            #expect(!again.stdout.contains("restored"), "\(device): \(again.stdout)")
        }
        let records = try ["d1", "d2", "d3"].map { try contents(try fx.store($0)) }
        #expect(records[0] == records[1] && records[1] == records[2], "every device holds the same records and versions")
        #expect(records[0].count == 9 + 3, "d1-1 … d3-3, lost, lost2 and Z")
        for key in ["lost", "lost2", "Z"] { #expect(records[0][SuiteKey(suite: "app", key: key)] != nil, "\(key) everywhere") }
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        let line = try #require(result.lines.last, "no output; stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}
