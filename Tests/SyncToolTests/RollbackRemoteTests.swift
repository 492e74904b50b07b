import Concord
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A replica restored from its backup, met through `serve` over a real sshd (either side restored),
/// through a relay between two remotes, and by live syncs (a remote, a directory) that run across the
/// restore. Each case converges with nothing lost and says so in one line.
@Suite("Rollback: serve, relay and live sync with a replica restored from a backup", .serialized, .offThePool)
struct RollbackRemoteTests {
    let fx: RemoteFixture
    init() throws { fx = try RemoteFixture() }

    @discardableResult
    func tool(_ arguments: [String]) throws -> ProcessResult {
        let result = try run("sync-tool", arguments)
        #expect(result.status == 0, "sync-tool \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    /// `sync-tool sync A B` where either may be a remote (`remote(name)`), with the fixture's ssh.
    @discardableResult
    func sync(_ a: String, _ b: String, _ extra: [String] = []) throws -> ProcessResult {
        try tool(["sync", a, b, "--rsh", fx.ssh.rsh, "--remote-command", Binaries.path("sync-tool")] + extra)
    }

    func set(_ name: String, _ keys: [String], value: String = "v") throws {
        for key in keys { try tool(["set", fx.path(name), "app", key, value + key]) }
    }

    func json(_ result: ProcessResult) throws -> [String: Any] { try RemoteFixture.json(result) }

    func records(_ names: [String]) throws -> [[SuiteKey: Record]] { try names.map { try contents(try Store(path: fx.path($0))) } }

    /// r1 holds k1…k10 at its backup; k11…k20 reach r2 through `transport`; r1 is restored and writes `new`.
    func restoreAfterSyncingMore(_ transport: (_ r1: String, _ r2: String) throws -> Void) throws {
        try set("r1", (1...10).map { "k\($0)" })
        try tool(["set", fx.path("r2"), "app", "seed", "r2"])
        try transport("r1", "r2")
        try ReplicaRestore.backup(fx.path("r1"), to: fx.path("r1.bak"))
        try set("r1", (11...20).map { "k\($0)" })
        try transport("r1", "r2")
        try ReplicaRestore.restore(fx.path("r1"), from: fx.path("r1.bak"))
        try set("r1", ["new"])
    }

    func expectConverged(_ count: Int = 22, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try records(["r1", "r2"])
        #expect(r[0] == r[1], sourceLocation: sourceLocation)
        #expect(r[0].count == count, "\(r[0].keys.map(\.key).sorted())", sourceLocation: sourceLocation)
    }

    @Test("serve: the restored replica is the local side (A); it finds itself restored; both converge")
    func restoredSideLocal() throws {
        try restoreAfterSyncingMore { r1, r2 in try sync(fx.path(r1), fx.remote(r2)) }
        let first = try json(try sync(fx.path("r1"), fx.remote("r2"), ["--json"]))
        #expect(first["restored"] as? [String] == ["A"], "\(first)")
        #expect((first["history_resync"] as? String)?.hasPrefix("A was restored from an earlier state") == true, "\(first)")
        try expectConverged()
        let again = try json(try sync(fx.path("r1"), fx.remote("r2"), ["--json"]))
        #expect(again["in_sync"] as? Bool == true && again["restored"] as? [String] == [])
    }

    @Test("serve: the restored replica is served (B), the peer syncs first and has written since; the text says B")
    func restoredSideRemote() throws {
        try restoreAfterSyncingMore { r1, r2 in try sync(fx.path(r2), fx.remote(r1)) }
        try set("r2", ["fromPeer"])
        let first = try sync(fx.path("r2"), fx.remote("r1"))
        #expect(
            first.lines.contains { $0.hasPrefix("B was restored from an earlier state") && $0.contains("resending everything both ways") }, "\(first.stdout)")
        try expectConverged(23)
    }

    @Test("serve: the restored replica wrote more than it lost; seqs alone would not show it")
    func restoredSideWroteMore() throws {
        try restoreAfterSyncingMore { r1, r2 in try sync(fx.path(r1), fx.remote(r2)) }
        try set("r1", (1...30).map { "more\($0)" })
        let first = try json(try sync(fx.remote("r2"), fx.path("r1"), ["--json"]))
        #expect(first["restored"] as? [String] == ["B"], "\(first)")
        try expectConverged(52)
    }

    @Test("relay between two remotes: each far side checks the other's claims as if connected; both converge")
    func relay() throws {
        try restoreAfterSyncingMore { r1, r2 in try sync(fx.remote(r1), fx.remote(r2)) }
        let first = try json(try sync(fx.remote("r2"), fx.remote("r1"), ["--json"]))
        #expect(first["restored"] as? [String] == ["B"], "\(first)")
        #expect((first["history_resync"] as? String)?.contains("resending everything both ways") == true, "\(first)")
        try expectConverged()
        #expect(try json(try sync(fx.remote("r2"), fx.remote("r1"), ["--json"]))["in_sync"] as? Bool == true)
    }

    @Test("live sync with a remote: the far replica is restored under a running --watch; the reconnected session finds it and converges")
    func liveRemoteAcrossARestore() throws {
        try restoreAfterSyncingMoreKeepingTheBackup()
        let child = try ChildProcess(
            "sync-tool", ["sync", fx.path("r2"), fx.remote("r1"), "--watch", "--json", "--rsh", fx.ssh.rsh, "--remote-command", Binaries.path("sync-tool")])
        #expect(child.waitForLine { $0.contains("\"round\":1") }, "\(child.errorOutput)")
        // The restore, as an operator does it, then the far serve dies: the loop reconnects to the restored replica.
        let serve = try #require(RemoteSyncTests.process(commandLineContaining: ["serve", fx.path("r1")]))
        try FileManager.default.moveItem(atPath: fx.path("r1"), toPath: fx.path("r1.old"))
        try FileManager.default.moveItem(atPath: fx.path("r1.bak"), toPath: fx.path("r1"))
        kill(serve, SIGKILL)
        let found = child.waitForLine(timeout: 60) { $0.contains("\"history_resync\":\"B was restored from an earlier state") }
        #expect(found, "\(child.output)\(child.errorOutput)")
        try set("r2", ["afterwards"])
        #expect(try eventually { try run("sync-tool", ["get", fx.path("r1"), "app", "afterwards"]).stdout == "vafterwards\n" })
        child.kill(SIGINT)
        #expect(child.wait(timeout: 30).status == 0)
        let r = try records(["r1", "r2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 22, "\(r[0].keys.map(\.key).sorted())")
    }

    @Test("live sync between directories: --watch stopped, one replica restored, --watch again: its first round finds it")
    func liveDirectoryAcrossARestore() throws {
        try set("r1", (1...5).map { "k\($0)" })
        let watch = { () throws -> ChildProcess in try ChildProcess("sync-tool", ["sync", fx.path("r1"), fx.path("r2"), "--watch", "--json", "--create"]) }
        var child = try watch()
        #expect(child.waitForLine { $0.contains("\"round\":1") }, "\(child.errorOutput)")
        child.kill(SIGINT)
        #expect(child.wait(timeout: 30).status == 0)
        try ReplicaRestore.backup(fx.path("r2"), to: fx.path("r2.bak"))
        child = try watch()
        #expect(child.waitForLine { $0.contains("\"round\":1") })
        try set("r1", (6...10).map { "k\($0)" })
        #expect(try eventually { try run("sync-tool", ["list", fx.path("r2"), "app"]).lines.count == 10 })
        child.kill(SIGINT)
        #expect(child.wait(timeout: 30).status == 0)
        try ReplicaRestore.restore(fx.path("r2"), from: fx.path("r2.bak"))
        try set("r2", ["onlyInRestored"])
        child = try watch()
        #expect(child.waitForLine { $0.contains("\"history_resync\":\"B was restored from an earlier state") }, "\(child.output)\(child.errorOutput)")
        child.kill(SIGINT)
        #expect(child.wait(timeout: 30).status == 0)
        let r = try records(["r1", "r2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 11)
    }

    /// As `restoreAfterSyncingMore` over serve, but r1's backup stays in r1.bak and r1 is not restored yet.
    func restoreAfterSyncingMoreKeepingTheBackup() throws {
        try set("r1", (1...10).map { "k\($0)" })
        try tool(["set", fx.path("r2"), "app", "seed", "r2"])
        try sync(fx.path("r2"), fx.remote("r1"))
        try ReplicaRestore.backup(fx.path("r1"), to: fx.path("r1.bak"))
        try set("r1", (11...20).map { "k\($0)" })
        try sync(fx.path("r2"), fx.remote("r1"))
    }

    func eventually(_ timeout: Double = 60, _ body: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try body() { return true }
            usleep(5_000)
        }
        return try body()
    }
}
