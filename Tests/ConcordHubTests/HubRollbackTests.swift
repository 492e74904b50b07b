import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A hub restored from a `pg_dump` taken before its last pushes hands out seqs again that devices'
/// cursors are past; a device restored from a backup hands its seqs out again to the hub. The first
/// sync that meets either must notice, and everything that still exists anywhere must come back
/// (the architecture document, "Trust and time"). Every step runs the built `sync-tool`.
@Suite("Rollback: a hub restored from a dump, a device restored from a backup", .serialized, .offThePool)
struct HubRollbackTests {
    let fx: HubFixture
    let url: String

    init() throws {
        fx = try HubFixture()
        url = try fx.account("alice").url
    }

    @discardableResult
    func sync(_ device: String, _ extra: [String] = []) throws -> ProcessResult {
        let result = try run("sync-tool", ["sync", fx.path(device), url] + extra)
        #expect(result.status == 0, "sync \(device): \(result.stderr)")
        return result
    }

    func set(_ device: String, _ key: String, _ value: String) throws {
        let result = try run("sync-tool", ["set", fx.path(device), "app", key, value])
        #expect(result.status == 0, "\(result.stderr)")
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        let line = try #require(result.lines.last, "no output; stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func records(_ devices: [String]) throws -> [[SuiteKey: Record]] {
        try devices.map { try contents(try fx.store($0)) }
    }

    /// Three devices; ten pushes; the dump; ten more pushes that everyone pulls; the dump restored
    /// (unless `restoring` is false: then the caller restores it).
    func restoreTheHubAfterMorePushes(restoring: Bool = true) throws {
        for i in 1...5 {
            try set("d1", "a\(i)", "1")
            try sync("d1")
            try set("d2", "b\(i)", "2")
            try sync("d2")
        }
        for device in ["d1", "d2", "d3"] { try sync(device) }
        try fx.server.dump(database: fx.database, to: fx.path("hub.dump"))
        for i in 1...5 {
            try set("d1", "c\(i)", "1")
            try sync("d1")
            try set("d2", "e\(i)", "2")
            try sync("d2")
        }
        for device in ["d1", "d2", "d3"] { try sync(device) }
        if restoring { try fx.server.restore(database: fx.database, from: fx.path("hub.dump")) }
    }

    @Test("the issue's three devices: device 3 writes Z after the restore; device 2 receives it; what the hub lost comes back from the devices")
    func writerSyncsFirst() throws {
        try restoreTheHubAfterMorePushes()
        try set("d3", "Z", "3")
        let first = try sync("d3", ["--json"])
        let report = try json(first)
        #expect(report["restored"] as? [String] == ["B"], "\(first.stdout)")
        #expect((report["history_resync"] as? String)?.hasPrefix("B (the hub) was restored from an earlier state") == true, "\(first.stdout)")
        let second = try sync("d2")
        #expect(second.lines.contains { $0.hasPrefix("B (the hub) was restored from an earlier state") }, "\(second.stdout)")
        try sync("d1")
        try sync("d3")
        let r = try records(["d1", "d2", "d3"])
        #expect(r[0] == r[1] && r[1] == r[2])
        #expect(r[1][SuiteKey(suite: "app", key: "Z")].flatMap { try? $0.value() } == .string("3"), "device 2 received Z")
        #expect(r[0].count == 21)
        // The hub holds everything again: a new device gets all of it.
        try sync("d4")
        #expect(try records(["d4"])[0] == r[0])
        let quiet = try sync("d2")
        #expect(!quiet.stdout.contains("restored") && quiet.lines.last == "in sync", "\(quiet.stdout)")
    }

    @Test("a device that wrote nothing syncs first after the restore, then device 3 writes Z: device 2 still receives it")
    func readerSyncsFirst() throws {
        try restoreTheHubAfterMorePushes()
        let first = try sync("d2")
        #expect(first.lines.contains { $0.hasPrefix("B (the hub) was restored from an earlier state") }, "\(first.stdout)")
        try set("d3", "Z", "3")
        try sync("d3")
        let second = try sync("d2")
        #expect(!second.stdout.contains("restored"), "device 2 resent everything already: \(second.stdout)")
        try sync("d1")
        try sync("d3")
        let r = try records(["d1", "d2", "d3"])
        #expect(r[0] == r[1] && r[1] == r[2])
        #expect(r[1][SuiteKey(suite: "app", key: "Z")] != nil)
        #expect(r[0].count == 21)
    }

    @Test("a device restored from its backup, having written more than it lost: the hub's cursor on it proves it; its lost writes come back")
    func deviceRestoredFromABackup() throws {
        for i in 1...3 { try set("d1", "a\(i)", "1") }
        try sync("d1")
        try ReplicaRestore.backup(fx.path("d1"), to: fx.path("d1.bak"))
        for i in 4...6 { try set("d1", "a\(i)", "1") }
        try sync("d1")
        try sync("d2")
        try ReplicaRestore.restore(fx.path("d1"), from: fx.path("d1.bak"))
        for i in 1...8 { try set("d1", "n\(i)", "restored") }
        let first = try sync("d1", ["--json"])
        let report = try json(first)
        #expect(report["restored"] as? [String] == ["A"], "\(first.stdout)")
        try sync("d2")
        let r = try records(["d1", "d2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 14)
    }

    @Test("live sync (--watch) across a hub restored under it: another device's Z arrives, and the round says the hub was restored")
    func liveDeviceAcrossARestore() throws {
        try restoreTheHubAfterMorePushes(restoring: false)
        let child = try ChildProcess("sync-tool", ["sync", fx.path("d2"), url, "--watch", "--json"])
        defer { child.kill(SIGKILL) }
        let deadline = Date().addingTimeInterval(60)
        while !child.errorOutput.contains("connected") && Date() < deadline { usleep(10_000) }
        #expect(child.errorOutput.contains("connected"), "\(child.errorOutput)")
        try fx.server.restore(database: fx.database, from: fx.path("hub.dump"))
        try set("d3", "Z", "3")
        try sync("d3")
        let found = child.waitForLine(timeout: 60) { $0.contains("\"history_resync\":\"B (the hub) was restored from an earlier state") }
        #expect(found, "\(child.output)\(child.errorOutput)")
        var received = false
        while !received && Date() < deadline.addingTimeInterval(60) {
            received = try run("sync-tool", ["get", fx.path("d2"), "app", "Z"]).stdout == "3\n"
            if !received { usleep(10_000) }
        }
        #expect(received, "device 2 received Z live")
        child.kill(SIGINT)
        #expect(child.wait(timeout: 30).status == 0, "\(child.errorOutput)")
        try sync("d1")
        try sync("d3")
        let r = try records(["d1", "d2", "d3"])
        #expect(r[0] == r[1] && r[1] == r[2])
        #expect(r[0].count == 21)
    }

    @Test(
        "live sync across a hub restored to far fewer seqs than it had handed out: after the round that finds it, another device's push (a seq below what the device had pulled) still wakes it"
    )
    func liveDeviceWakesForReissuedSeqs() throws {
        for i in 1...3 { try set("d1", "k\(i)", "1") }
        try sync("d1")
        try sync("d2")
        try fx.server.dump(database: fx.database, to: fx.path("hub.dump"))
        // Thirty pushes of one key: the hub hands out 30 seqs that d1's journal holds as one entry.
        for i in 1...30 {
            try set("d1", "often", "\(i)")
            try sync("d1")
        }
        // A heartbeat far longer than the test: only announcements and local commits start a round.
        let child = try ChildProcess("sync-tool", ["sync", fx.path("d2"), url, "--watch", "--json", "--heartbeat", "600"])
        defer { child.kill(SIGKILL) }
        #expect(child.waitForLine(timeout: 60) { $0.contains("\"round\":") }, "\(child.output)\(child.errorOutput)")
        try fx.server.restore(database: fx.database, from: fx.path("hub.dump"))
        try sync("d1") // finds the restore and pushes its four keys again: the hub is far below seq 33
        try set("d2", "local", "2") // a local commit starts d2's round, which finds the restore too
        let found = child.waitForLine(timeout: 60) { $0.contains("\"history_resync\":\"B (the hub) was restored from an earlier state") }
        #expect(found, "\(child.output)\(child.errorOutput)")
        try set("d1", "after", "1")
        try sync("d1")
        var received = false
        let deadline = Date().addingTimeInterval(60)
        while !received && Date() < deadline {
            received = try run("sync-tool", ["get", fx.path("d2"), "app", "after"]).stdout == "1\n"
            if !received { usleep(20_000) }
        }
        #expect(received, "d1's push woke d2, whose heartbeat is ten minutes away: \(child.output)")
        child.kill(SIGINT)
        #expect(child.wait(timeout: 30).status == 0, "\(child.errorOutput)")
        try sync("d1")
        try sync("d2")
        let r = try records(["d1", "d2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 6, "k1…k3, often, local, after")
    }

    @Test("a hub of schema 3 with devices that synced under it: hub init upgrades it; each device resends everything once, says so, then syncs deltas")
    func schemaThreeHubUpgrades() throws {
        for i in 1...3 { try set("d1", "a\(i)", "1") }
        try sync("d1")
        try sync("d2")
        try set("d2", "b1", "2")
        try sync("d2")
        try sync("d1")
        // Back to what the previous release left: the hub at schema 3, the devices' cursors without marks.
        let admin = try PostgresConnection(ConnectionString(fx.adminURL))
        for statement in [
            "ALTER TABLE concord_hub.records DROP COLUMN sealed, DROP COLUMN expires_ms",
            "DROP TABLE concord_hub.marks",
            "ALTER TABLE concord_hub.accounts DROP COLUMN mark, DROP COLUMN marks_pruned",
            """
            ALTER TABLE concord_hub.devices DROP CONSTRAINT mark_covers_pushed, DROP COLUMN mark, DROP COLUMN mark_seq,
              DROP COLUMN echo_safe, DROP COLUMN since, DROP COLUMN hub_mark, DROP COLUMN found_restored
            """,
            "UPDATE concord_hub.meta SET schema_version = 3"
        ] { try admin.execute(statement) }
        let old = try run("sync-tool", ["sync", fx.path("d1"), url])
        #expect(old.status != 0, "a schema-3 hub is not current: \(old.stderr)")
        for device in ["d1", "d2"] {
            let store = try fx.store(device)
            try store.write { w in
                for cursor in try w.peerCursors().cursors {
                    var legacy = ByteWriter()
                    legacy.u8(1)
                    for n in [cursor.received, cursor.acknowledged, cursor.updatedMilliseconds] { legacy.u64(n) }
                    try w.txn.put(w.layout.peers, cursor.key, legacy.bytes)
                }
            }
        }
        let upgraded = try run("sync-tool", ["hub", "init", fx.adminURL])
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        for device in ["d1", "d2"] {
            let first = try json(try sync(device, ["--json"]))
            #expect((first["history_resync"] as? String)?.contains("predate history marks") == true, "\(device): \(first)")
            #expect(first["restored"] as? [String] == [], "\(device): \(first)")
        }
        try set("d1", "after", "1")
        let delta = try json(try sync("d1", ["--json"]))
        #expect(delta["pushed"] as? Int == 1 && delta["history_resync"] is NSNull, "\(delta)")
        try sync("d2")
        let r = try records(["d1", "d2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 5)
    }
}
