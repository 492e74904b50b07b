import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import TestSupport
import Testing

/// Faults with a server of their own (they stop it): the server stopped mid-push and mid-pull, a
/// device killed mid-pull. Nothing is half-applied on either side, and the next sync converges.
@Suite("Hub faults", .serialized, .offThePool)
struct HubFaultTests {
    @Test("the server stops (immediate shutdown) while a push's transaction is open: the hub has none of it, the device is unchanged, the next sync converges")
    func serverStopsMidPush() throws {
        let server = try ScratchPostgres()
        defer { server.destroy() }
        let fx = try HubFixture(server: server)
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let laptop = try fx.store("laptop")
        try phone.suite("bulk").batch { b in for i in 0..<500 { try b.set(i, forKey: "k\(i)") } }
        let before = try contents(phone)
        let cursorsBefore = try phone.peerCursors()

        let hub = try Hub(alice.url)
        let batch = try DeltaReader.read(from: phone, for: hub.replicaID, alreadyMerged: .none).batch
        try hub.db.execute("BEGIN")
        let outcome = try HubPush.pushInOpenTransaction(batch, to: hub)
        #expect(outcome.rowsChanged == 500)
        server.stop(.immediate)
        #expect(throws: PostgresError.self) { try hub.db.execute("COMMIT") }
        expectError(.unreachable) { try HubSynchronizer().sync(phone, hub) }
        try server.start()

        #expect(try HubAdmin(fx.adminURL).stats().rows == 0, "the hub holds nothing of the cut push")
        #expect(try contents(phone) == before)
        #expect(try phone.peerCursors() == cursorsBefore)
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(try contents(laptop) == before)
    }

    @Test("a device process pushing 20,000 changes meets a server stopped at a random moment: all or nothing on the hub, then convergence")
    func serverStopsUnderARealPush() throws {
        let server = try ScratchPostgres()
        defer { server.destroy() }
        let fx = try HubFixture(server: server)
        let alice = try fx.account("alice")
        var outcomes: [String] = []
        for round in 0..<3 {
            let dir = fx.path("phone\(round)")
            let child = try ChildProcess("concord-test-helper", ["hub-write-and-sync", dir, alice.url, "20000"])
            #expect(child.waitForLine(timeout: 60) { $0 == "written" })
            // Early, middle, late: the stop lands before the push commits or after it.
            usleep(UInt32([100_000, 1_000_000, 4_000_000][round]) + UInt32.random(in: 0...300_000))
            server.stop(.fast)
            let result = child.wait(timeout: 60)
            #expect(result.status == 0 || result.status == 5, "\(result.stderr)")
            try server.start()
            let stats = try HubAdmin(fx.adminURL).stats()
            let rows = stats.rows - 20000 * outcomes.count
            #expect(rows == 0 || rows == 20000, "round \(round): the hub holds \(rows) rows of one push")
            outcomes.append(rows == 0 ? "none" : "all")
            let phone = try Store(path: dir)
            try HubSynchronizer().sync(phone, try Hub(alice.url))
            #expect(try HubAdmin(fx.adminURL).stats().rows == 20000 * (round + 1))
        }
        let laptop = try fx.store("laptop")
        try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(try contents(laptop).count == 20000 * 3, "outcomes: \(outcomes)")
        print("server stopped mid-push, hub outcomes per round: \(outcomes)")
    }

    @Test("a device killed mid-pull keeps whole pages only; the server stopped mid-pull likewise; the next sync finishes")
    func killedAndStoppedMidPull() throws {
        let server = try ScratchPostgres()
        defer { server.destroy() }
        let fx = try HubFixture(server: server)
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        try phone.suite("bulk").batch { b in for i in 0..<20000 { try b.set("v\(i)", forKey: "k\(i)") } }
        try HubSynchronizer().sync(phone, try Hub(alice.url))
        let expected = try contents(phone)

        // A device process pulling in pages of 100 (each one durable local commit), SIGKILLed at a random moment.
        let tablet = fx.path("tablet")
        let child = try ChildProcess("concord-test-helper", ["hub-sync", tablet, alice.url, "100"])
        usleep(UInt32.random(in: 100_000...700_000))
        child.kill()
        _ = child.wait()
        let partial = try contents(try Store(path: tablet))
        #expect(partial.count % 100 == 0, "whole pages only: \(partial.count) records")
        #expect(partial.allSatisfy { expected[$0.key] == $0.value })

        // This process pulling while the server stops: whole pages, an error, then the rest.
        let laptop = try fx.store("laptop")
        let hub = try Hub(alice.url)
        let stopper = Thread {
            usleep(UInt32.random(in: 50_000...300_000))
            server.stop(.fast)
        }
        stopper.start()
        var failed = false
        do { try HubSynchronizer(pageSize: 250).pull(laptop, hub) } catch let error as ConcordError { failed = error.code == .unreachable }
        while server.isRunning { usleep(10_000) }
        let cut = try contents(laptop)
        #expect(cut.count % 250 == 0 && (failed || cut.count == 20000))
        try server.start()
        for store in [try Store(path: tablet), laptop] {
            try HubSynchronizer().sync(store, try Hub(alice.url))
            #expect(try contents(store) == expected)
        }
        print("killed mid-pull at \(partial.count) records; server stopped mid-pull at \(cut.count) records (error seen: \(failed))")
    }
}
