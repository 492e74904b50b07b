import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// The hub's trap (the architecture document, "The hub"): seqs handed out by concurrent transactions commit out of order, so a reader
/// that moves its cursor past N can skip a smaller seq committed later.
@Suite("Hub seqs become visible in order", .offThePool)
struct HubOrderingTests {
    @Test("the naive way (a sequence): a reader between two out-of-order commits skips a row for good")
    func sequenceSkipsARow() throws {
        let fx = try HubFixture()
        let admin = try PostgresConnection(ConnectionString(fx.adminURL))
        try admin.execute("CREATE TABLE naive (seq bigserial PRIMARY KEY, v text)")
        let first = try PostgresConnection(ConnectionString(fx.adminURL))
        let second = try PostgresConnection(ConnectionString(fx.adminURL))
        try first.execute("BEGIN")
        try first.execute("INSERT INTO naive (v) VALUES ('first')") // takes seq 1, not committed yet
        try second.execute("BEGIN")
        try second.execute("INSERT INTO naive (v) VALUES ('second')") // takes seq 2
        try second.execute("COMMIT")
        var cursor: Int64 = 0
        var seen: [String] = []
        func pull() throws {
            let rows = try admin.execute("SELECT seq, v FROM naive WHERE seq > $1 ORDER BY seq", [.int8(cursor)])
            for r in 0..<rows.count {
                cursor = try rows.int64(r, 0)
                seen.append(try rows.text(r, 1))
            }
        }
        try pull() // sees seq 2 only, and moves past 1
        try first.execute("COMMIT") // seq 1 becomes visible now, behind the cursor
        try pull()
        #expect(seen == ["second"], "the reader never sees 'first': the naive way loses it")
        #expect(try admin.execute("SELECT count(*) FROM naive").int64(0, 0) == 2)
    }

    @Test("the hub's counter row: a pusher waits for the one before it; a reader in between sees neither, then both")
    func counterRowKeepsOrder() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let a = try fx.store("a")
        let b = try fx.store("b")
        let reader = try fx.store("reader")
        try a.suite("prefs").set("from a", forKey: "x")
        try b.suite("prefs").set("from b", forKey: "y")
        let hubA = try Hub(alice.url)
        let hubR = try Hub(alice.url)
        let batchA = try DeltaReader.read(from: a, for: hubA.replicaID, alreadyMerged: .none).batch

        try hubA.db.execute("BEGIN")
        let pushedA = try HubPush.pushInOpenTransaction(batchA, to: hubA) // holds the counter row; seq 1
        #expect(pushedA.lastSeq == 1)
        let bDone = Collector<String>()
        let bPID = Collector<Int32>()
        let url = alice.url
        let thread = Thread {
            do {
                let hubB = try Hub(url)
                bPID.append(hubB.db.backendPID)
                try HubSynchronizer().push(b, hubB)
                bDone.append("ok")
            } catch {
                bPID.append(0)
                bDone.append("\(error)")
            }
        }
        thread.start()
        #expect(bPID.wait(for: 1))
        let pidB = bPID.values[0]
        // B's push is queued behind A's lock (the server says so), not merely slow.
        let admin = try PostgresConnection(ConnectionString(fx.adminURL))
        var waiting = false
        for _ in 0..<3000 where !waiting {
            let rows = try admin.execute("SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", [.int8(Int64(pidB))])
            waiting = rows.count == 1 && (try? rows.bool(0, 0)) == true
            if !waiting { usleep(10_000) }
        }
        #expect(waiting, "B's push waits for the counter row")
        let during = try HubSynchronizer().pull(reader, hubR)
        #expect(during.entries == 0, "nothing is visible while A holds the counter")
        #expect(try reader.peerCursors().received(from: hubR.replicaID, scope: .allSuites) == 0)

        try hubA.db.execute("COMMIT")
        #expect(bDone.wait(for: 1, timeout: 30))
        #expect(bDone.values == ["ok"])
        try HubSynchronizer().pull(reader, hubR)
        #expect(try reader.suite("prefs").get("x", as: String.self) == "from a")
        #expect(try reader.suite("prefs").get("y", as: String.self) == "from b")
    }
}
