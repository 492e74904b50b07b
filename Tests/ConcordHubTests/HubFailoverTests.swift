import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import Synchronization
import TestSupport
import Testing

/// PostgreSQL's own high availability under the hub: a primary with a streaming standby (made with
/// `pg_basebackup -R`), devices on a multi-host URI that picks whichever server accepts writes.
@Suite("Hub failover", .serialized)
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
}
