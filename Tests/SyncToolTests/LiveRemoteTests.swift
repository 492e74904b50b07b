import Concord
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Live sync with a remote over a real sshd", .serialized, .offThePool)
struct LiveRemoteTests {
    let fx: RemoteFixture
    init() throws { fx = try RemoteFixture() }

    var options: RemoteOptions {
        var options = RemoteOptions()
        options.rsh = fx.ssh.rsh
        options.remoteCommand = Binaries.path("sync-tool")
        options.create = true
        return options
    }

    func eventually(_ timeout: Double = 30, _ body: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try body() { return true }
            usleep(2_000)
        }
        return try body()
    }

    @Test("a set on either side is readable on the other; the far serve killed, the session comes back; the state stream tells it all")
    func liveBothWaysAcrossAKill() async throws {
        let a = try Store(path: fx.path("a"))
        try await a.suite("prefs").set("dark", forKey: "theme")
        let live = try LiveSync(store: a, remote: fx.remote("b"), options: options, heartbeat: .seconds(30), maxBackoff: .seconds(0.3))
        let states = Collector<LiveSyncState>()
        let watcher = Task { for await state in live.states() { states.append(state) } }
        #expect(await states.arrival(of: 1))
        #expect(try eventually { FileManager.default.fileExists(atPath: fx.path("b") + "/data.mdb") && live.state.isInSync })
        let b = try Store(path: fx.path("b"))
        #expect(try b.suite("prefs").get("theme", as: String.self) == "dark")

        try await a.suite("prefs").set("light", forKey: "theme")
        #expect(try eventually { try b.suite("prefs").get("theme", as: String.self) == "light" })
        try await b.suite("prefs").set(7, forKey: "size") // the far replica's own commit: serve announces it
        #expect(try eventually { try a.suite("prefs").get("size", as: Int.self) == 7 })

        let serve = try #require(RemoteSyncTests.process(commandLineContaining: ["serve", fx.path("b")]))
        kill(serve, SIGKILL)
        #expect(eventually { live.state.lastError != nil || live.state.connection != .connected })
        try await b.suite("prefs").set(8, forKey: "size")
        #expect(try eventually { try a.suite("prefs").get("size", as: Int.self) == 8 })
        #expect(try contents(a) == contents(b))

        live.stop()
        _ = await watcher.value
        let seen = states.values
        #expect(seen.contains { $0.connection == .connecting })
        #expect(seen.contains { $0.connection == .connected && $0.isInSync && $0.lastRound != nil })
        #expect(seen.contains { $0.pendingChanges })
        #expect(seen.contains { if case .waitingToRetry = $0.connection { $0.lastError != nil } else { false } })
        #expect(seen.last?.connection == .stopped)
    }

    @Test(
        "live over serve: the far serve paused (SIGSTOP), the wait for acknowledgement times out naming it; resumed, it returns; device-local and expiring keys as every transport"
    )
    func acknowledgementAcrossAPausedServe() async throws {
        let a = try Store(path: fx.path("a"))
        let b = try Store(path: fx.path("b"))
        try await b.setName("desktop")
        try RemoteFixture.prepareSettings(a, b)
        let live = try LiveSync(store: a, remote: fx.remote("b"), options: options, heartbeat: .seconds(30), maxBackoff: .seconds(0.3))
        defer { live.stop() }
        try await live.waitUntilAcknowledged(timeout: .seconds(60))
        try RemoteFixture.expectSettings(a, b)
        #expect(a.livePeers() == [b.replicaID] && b.livePeers() == [a.replicaID], "the client and the live serve both register")

        let serve = try #require(RemoteSyncTests.process(commandLineContaining: ["serve", fx.path("b")]))
        kill(serve, SIGSTOP)
        defer { kill(serve, SIGCONT) }
        try await a.suite("app").set("offline", forKey: "note")
        do {
            try await live.waitUntilAcknowledged(timeout: .milliseconds(500))
            Issue.record("acknowledged while the far serve was stopped")
        } catch let error as ConcordError where error.code == .notAcknowledged {
            #expect(error.peer == b.replicaID.description && error.parts == ["desktop", "1"], "\(error)")
            #expect(error.message.contains("\(b.replicaID) (desktop)") && error.message.contains("1 change is still unacknowledged"), "\(error)")
        }
        let waiting = Task { try await live.waitUntilAcknowledged(timeout: .seconds(120)) }
        kill(serve, SIGCONT)
        try await waiting.value
        #expect(try b.suite("app").get("note", as: String.self) == "offline")
        live.stop()
        #expect(a.livePeers().isEmpty)
    }

    @Test("sync --watch: one JSON line per round, a change propagates, SIGINT prints a summary and exits 0")
    func watchCommand() throws {
        let a = try Store(path: fx.path("a"))
        try a.suite("prefs").set("dark", forKey: "theme")
        let child = try ChildProcess(
            "sync-tool",
            [
                "sync", fx.path("a"), fx.remote("b"), "--watch", "--json", "--create",
                "--rsh", fx.ssh.rsh, "--remote-command", Binaries.path("sync-tool")
            ])
        #expect(child.waitForLine { $0.contains("\"round\":1") })
        let b = try Store(path: fx.path("b"))
        try a.suite("prefs").set("light", forKey: "theme")
        #expect(try eventually { try b.suite("prefs").get("theme", as: String.self) == "light" })
        child.kill(SIGINT)
        let result = child.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(result.lines.last)
        #expect(summary.contains("\"summary\":true"))
        #expect(summary.contains("\"pushed\":2"))
    }

    @Test("sync REMOTE DIR --watch (the remote given as A): a set on each side arrives on the other")
    func watchWithTheRemoteFirst() throws {
        let a = try Store(path: fx.path("a"))
        try a.suite("prefs").set("dark", forKey: "theme")
        let child = try ChildProcess(
            "sync-tool",
            [
                "sync", fx.remote("b"), fx.path("a"), "--watch", "--json", "--create",
                "--rsh", fx.ssh.rsh, "--remote-command", Binaries.path("sync-tool")
            ])
        #expect(child.waitForLine { $0.contains("\"round\":1") })
        let b = try Store(path: fx.path("b"))
        #expect(try eventually { try b.suite("prefs").get("theme", as: String.self) == "dark" })
        try b.suite("prefs").set(7, forKey: "volume")
        #expect(try eventually { try a.suite("prefs").get("volume", as: Int.self) == 7 })
        try a.suite("prefs").set("light", forKey: "theme")
        #expect(try eventually { try b.suite("prefs").get("theme", as: String.self) == "light" })
        child.kill(SIGINT)
        let result = child.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try #require(result.lines.last).contains("\"summary\":true"))
    }

    @Test("sync REMOTE REMOTE --watch, relayed through this process: a set on each side arrives on the other")
    func watchBetweenTwoRemotes() throws {
        let a = try Store(path: fx.path("a"))
        try a.suite("prefs").set("dark", forKey: "theme")
        let child = try ChildProcess(
            "sync-tool",
            [
                "sync", fx.remote("a"), fx.remote("b"), "--watch", "--json", "--create",
                "--rsh", fx.ssh.rsh, "--remote-command", Binaries.path("sync-tool")
            ])
        #expect(child.waitForLine { $0.contains("\"round\":1") })
        let b = try Store(path: fx.path("b"))
        #expect(try eventually { try b.suite("prefs").get("theme", as: String.self) == "dark" })
        try b.suite("prefs").set(7, forKey: "volume")
        #expect(try eventually { try a.suite("prefs").get("volume", as: Int.self) == 7 })
        try a.suite("prefs").set("light", forKey: "theme")
        #expect(try eventually { try b.suite("prefs").get("theme", as: String.self) == "light" })
        #expect(try a.peerCursors().peers == [b.replicaID] && b.peerCursors().peers == [a.replicaID])
        child.kill(SIGINT)
        let result = child.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try #require(result.lines.last).contains("\"summary\":true"))
    }
}
