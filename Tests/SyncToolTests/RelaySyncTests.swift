import Concord
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Two remote replicas (two directories behind the same loopback sshd), synced through the local process.
@Suite("Two remotes relayed through this process over a real sshd", .serialized, .offThePool)
struct RelaySyncTests {
    let fx: RemoteFixture
    init() throws { fx = try RemoteFixture() }

    func relay(_ extra: [String] = []) throws -> ProcessResult {
        try run(
            "sync-tool", ["sync", fx.remote("a"), fx.remote("b"), "--rsh", fx.ssh.rsh, "--remote-command", Binaries.path("sync-tool")] + extra,
            timeout: 120)
    }

    @Test("relayed: device-local keys stay on each side, expiring values keep their expiry")
    func deviceLocalAndExpiringKeys() throws {
        let a = try Store(path: fx.path("a"))
        let b = try Store(path: fx.path("b"))
        try RemoteFixture.prepareSettings(a, b)
        let synced = try relay(["--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        try RemoteFixture.expectSettings(a, b)
        try a.suite("app").set("/a2", forKey: "local.path")
        #expect(try relay(["--dry-run"]).status == 0, "a device-local change is not pending")
    }

    @Test("--dry-run exits 10 and writes nothing; the sync converges in whole batches both ways; the cursors name only the two replicas")
    func relayedSync() throws {
        let a = try Store(path: fx.path("a"))
        try RemoteFixture.fill(a, count: 30_000) // two batches of at most 20,000 entries
        let b = try Store(path: fx.path("b"))
        try b.suite("prefs").set("from b", forKey: "b0")
        try b.suite("prefs").set("b wins", forKey: "k7")
        let (seqA, seqB) = (try a.lastSeq(), try b.lastSeq())

        let pending = try relay(["--dry-run", "--json"])
        #expect(pending.status == 10, "\(pending.stderr)")
        let plan = try RemoteFixture.json(pending)
        #expect(plan["dry_run"] as? Bool == true)
        #expect(plan["sent_a_to_b"] as? Int == 30_000)
        #expect(plan["sent_b_to_a"] as? Int == 2)
        #expect(plan["records_changed_a"] as? Int == 2)
        #expect(try a.lastSeq() == seqA && b.lastSeq() == seqB)
        #expect(try b.suite("prefs").get("k0", as: String.self) == nil)

        let synced = try relay(["--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        let report = try RemoteFixture.json(synced)
        #expect(report["sent_a_to_b"] as? Int == 30_000)
        #expect(report["sent_b_to_a"] as? Int == 2)
        #expect(report["records_changed_b"] as? Int == 30_000 - 1) // k7: B's later write wins
        #expect(try contents(a) == contents(b))
        #expect(try a.suite("prefs").get("b0", as: String.self) == "from b")
        #expect(try a.suite("prefs").get("k7", as: String.self) == "b wins")
        // No third replica: each side's cursors name the other only, and each has merged all of the other.
        #expect(try a.peerCursors().peers == [b.replicaID])
        #expect(try b.peerCursors().peers == [a.replicaID])
        #expect(try b.peerCursors().received(from: a.replicaID, scope: .allSuites) == a.lastSeq())
        #expect(try a.peerCursors().received(from: b.replicaID, scope: .allSuites) == b.lastSeq())

        // A delta both ways sends only what changed; then a dry run finds nothing.
        try a.suite("prefs").set("changed", forKey: "k1")
        try b.suite("prefs").set("new", forKey: "b1")
        let delta = try RemoteFixture.json(try relay(["--json"]))
        #expect(delta["sent_a_to_b"] as? Int == 1)
        #expect(delta["sent_b_to_a"] as? Int == 1)
        #expect(try contents(a) == contents(b))
        let clean = try relay(["--dry-run"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.lines.last == "in sync")
    }

    @Test("B's far serve killed mid-relay: whole batches merged in B, its cursor forward, and the next relay sends only the rest")
    func killedMidRelay() throws {
        let a = try Store(path: fx.path("a"))
        try RemoteFixture.fill(a, count: 100_000)
        let bPath = fx.path("b")
        let child = try ChildProcess(
            "sync-tool",
            [
                "sync", fx.remote("a"), fx.remote("b"), "--create", "--rsh", fx.ssh.rsh,
                "--remote-command", Binaries.path("sync-tool")
            ])
        var merged: UInt64 = 0
        let deadline = Date().addingTimeInterval(60)
        while merged == 0 && Date() < deadline {
            if FileManager.default.fileExists(atPath: bPath + "/data.mdb"), let b = try? Store(path: bPath) { merged = (try? b.lastSeq()) ?? 0 }
            if merged == 0 { usleep(5_000) }
        }
        #expect(merged > 0)
        let serve = try #require(RemoteSyncTests.process(commandLineContaining: ["serve", bPath]))
        kill(serve, SIGKILL)
        let cut = child.wait()
        #expect(cut.status == 5, "\(cut.stderr)")
        let b = try Store(path: bPath)
        let count = try b.suite("prefs").keys().count
        #expect(count > 0 && count < 100_000, "the kill came after the whole relay (\(count) keys)")
        #expect(count % 20_000 == 0, "only whole batches are merged (\(count) keys)")
        #expect(try b.peerCursors().received(from: a.replicaID, scope: .allSuites) > 0)
        #expect(try b.peerCursors().peers == [a.replicaID])
        let resumed = try RemoteFixture.json(try relay(["--json"]))
        #expect(resumed["sent_a_to_b"] as? Int == 100_000 - count)
        #expect(try contents(a) == contents(b))
    }

    @Test("the same replica given twice is refused (exit 3), a remote with a hub is a usage error (2), a missing remote directory without --create exits 4")
    func refusals() throws {
        _ = try Store(path: fx.path("a"))
        let same = try run(
            "sync-tool",
            [
                "sync", fx.remote("a"), fx.ssh.address(fx.path("a") + "/"), "--rsh", fx.ssh.rsh,
                "--remote-command", Binaries.path("sync-tool")
            ])
        #expect(same.status == 3, "\(same.stderr)")
        #expect(same.stderr.contains("same replica"))
        let hub = try run("sync-tool", ["sync", fx.remote("a"), "postgresql://alice@127.0.0.1/concord"])
        #expect(hub.status == 2)
        #expect(hub.stderr.contains("on the remote's machine"), "\(hub.stderr)")
        let missing = try relay()
        #expect(missing.status == 4, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fx.path("b")))
    }
}
