import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

#if canImport(Glibc)
    import Glibc
#endif

/// `set --expires-in/--expires-at`, `scope` and `status` through the real sync-tool: values that
/// expire, keys that stay on this device, and whether the peers have what this replica wrote —
/// including a live sync killed (never left as live) and one paused and resumed (the wait for
/// acknowledgement waits, times out while it is stopped, and returns once it runs again).
@Suite("sync-tool: expiry, device-local keys, status", .serialized, .offThePool)
struct SettingsCommandTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory() }

    func path(_ name: String) -> String { tmp.path(name) }

    func json(_ line: String?) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data((line ?? "").utf8)) as? [String: Any], "\(line ?? "no output")")
    }

    @Test func setWithAnExpiryReadsUntilThenAndTheBadOnesAreRefused() throws {
        let dir = path("r")
        #expect(Invocation(["set", dir, "app", "token", "abc", "--expires-in", "3600"]).status == 0)
        let later = JSONValue.formatDate(Date(timeIntervalSinceNow: 7200))
        #expect(Invocation(["set", dir, "app", "snooze", "true", "--type", "bool", "--expires-at", later]).status == 0)
        #expect(Invocation(["get", dir, "app", "token"]).out == ["abc"])
        let fields = try json(Invocation(["get", dir, "app", "token", "--json"]).out.first)
        #expect(fields["expires"] is String && fields["expired"] == nil, "\(fields)")
        #expect(try json(Invocation(["get", dir, "app", "snooze", "--json"]).out.first)["expires"] as? String == later.replacingOccurrences(of: "Z", with: "Z"))
        let why = Invocation(["why", dir, "app", "token"]).out
        #expect(why.contains { $0.hasPrefix("  expires ") }, "\(why)")

        // A value that has expired: get exits 1 saying so, list leaves it out, why says when.
        let store = try Store(path: dir)
        let seen = Collector<Change>()
        let token = try store.suite("app").changes(for: "old").start { seen.append($0) }
        try store.suite("app").set("gone", forKey: "old", expiresAfter: .milliseconds(200))
        #expect(seen.wait(for: 2, timeout: 30), "the store's timer tells the observer the value expired")
        #expect(seen.values.last?.origin == .expired)
        withExtendedLifetime(token) {}
        let get = Invocation(["get", dir, "app", "old"])
        #expect(get.status == 1 && get.err.first?.contains("its value expired at") == true, "\(get.err)")
        #expect(!Invocation(["list", dir, "app"]).out.contains { $0.contains("\told\t") })
        #expect(Invocation(["why", dir, "app", "old"]).out.contains { $0.hasPrefix("  expired ") })
        let whyJSON = try json(Invocation(["why", dir, "app", "old", "--json"]).out.first)
        #expect((whyJSON["record"] as? [String: Any])?["expired"] as? Bool == true, "\(whyJSON)")

        let before = try store.lastSeq()
        for (arguments, status) in [
            (["--expires-in", "0"], Int32(3)), (["--expires-in", "-5"], 3), (["--expires-in", "soon"], 3),
            (["--expires-at", "yesterday"], 3), (["--expires-at", "2001-01-01T00:00:00Z"], 3),
            (["--expires-in", "5", "--expires-at", later], 2)
        ] {
            let run = Invocation(["set", dir, "app", "k", "v"] + arguments)
            #expect(run.status == status && run.err.count == 1, "\(arguments): \(run.err)")
        }
        #expect(Invocation(["policy", dir, "app", "n", "counter"]).status == 0)
        let counter = Invocation(["set", dir, "app", "n", "1", "--type", "int", "--expires-in", "60"])
        #expect(counter.status == 3 && counter.err.first?.contains("only a last-writer-wins key") == true, "\(counter.err)")
        #expect(try store.lastSeq() == before + 1, "only the policy declaration was written")
    }

    @Test func scopeKeepsKeysOnThisDeviceAndSaysSo() throws {
        let (a, b) = (path("a"), path("b"))
        #expect(Invocation(["set", b, "ui", "theme", "light"]).status == 0)
        #expect(Invocation(["scope", a, "ui", "window.", "device", "--prefix"]).status == 0)
        #expect(Invocation(["scope", a, "ui", "window.theme", "synced"]).status == 0)
        #expect(Invocation(["set", a, "ui", "window.frame", "0 0 800 600"]).status == 0)
        #expect(Invocation(["set", a, "ui", "window.theme", "dark"]).status == 0)
        #expect(Invocation(["scope", a, "ui", "window.frame"]).out == ["device"])
        #expect(Invocation(["scope", a, "ui", "window.theme"]).out == ["synced"])
        #expect(Invocation(["scope", a, "ui"]).out == ["window.theme\tsynced", "window.*\tdevice"])
        #expect(Invocation(["list", a, "ui"]).out == ["ui\twindow.frame\tstring\t0 0 800 600\tdevice-local", "ui\twindow.theme\tstring\tdark"])
        #expect(try json(Invocation(["get", a, "ui", "window.frame", "--json"]).out.first)["device_local"] as? Bool == true)
        #expect(Invocation(["why", a, "ui", "window.frame"]).out.contains { $0.contains("device-local") })

        // Pending counts leave it out: a dry run sees the declarations and window.theme only.
        let dry = try json(Invocation(["sync", a, b, "--dry-run", "--json"]).out.last)
        #expect(dry["sent_a_to_b"] as? Int == 3, "two declarations and window.theme: \(dry)")
        #expect(Invocation(["sync", a, b]).status == 0)
        #expect(Invocation(["get", b, "ui", "window.frame"]).status == 1)
        #expect(Invocation(["get", b, "ui", "window.theme"]).out == ["dark"])
        #expect(Invocation(["scope", b, "ui", "window.frame"]).out == ["device"])
        #expect(Invocation(["set", a, "ui", "window.frame", "moved"]).status == 0)
        #expect(Invocation(["sync", a, b, "--dry-run"]).status == 0, "only a device-local change: nothing pending")
        let status = try json(Invocation(["status", a, "--json"]).out.first)
        let peers = try #require(status["peers"] as? [[String: Any]])
        #expect(peers.count == 1 && peers[0]["unacknowledged"] as? Int == 0, "\(status)")

        for (arguments, code) in [
            (["scope", a, "ui", "k", "nowhere"], Int32(3)), (["scope", a, "ui", "k", "--prefix"], 2), (["scope", a, "_concord", "k", "device"], 3),
            (["scope", a, "ui", "", "device"], 3)
        ] {
            let run = Invocation(arguments)
            #expect(run.status == code && run.err.count == 1, "\(arguments): \(run.err)")
        }
    }

    @Test func statusNamesEachPeerAndSaysWhetherItIsLiveAndNeverLeavesAKilledOneLive() throws {
        let (a, b) = (path("a"), path("b"))
        #expect(Invocation(["name", b, "Bob's tablet"]).status == 0)
        #expect(Invocation(["set", a, "app", "x", "1"]).status == 0)
        #expect(Invocation(["status", a]).out.last == "no peers: it has not synced with anyone")
        #expect(Invocation(["sync", a, b]).status == 0)
        #expect(Invocation(["set", a, "app", "y", "2"]).status == 0)
        let text = Invocation(["status", a]).out
        #expect(text.last?.contains("(Bob's tablet): not live, last synced ") == true && text.last?.hasSuffix("1 change not acknowledged") == true, "\(text)")

        let watch = try ChildProcess("sync-tool", ["sync", a, b, "--watch", "--json"])
        #expect(watch.waitForLine { $0.contains("\"round\":1") }, "\(watch.errorOutput)")
        for (dir, other) in [(a, b), (b, a)] {
            let peers = try #require(try json(Invocation(["status", dir, "--json"]).out.first)["peers"] as? [[String: Any]])
            #expect(peers.first?["live"] as? Bool == true, "\(dir)")
            #expect(peers.first?["peer"] as? String == (try Store(path: other).replicaID.description))
        }
        let acknowledged = try #require(try json(Invocation(["status", a, "--json"]).out.first)["peers"] as? [[String: Any]])
        #expect(acknowledged.first?["unacknowledged"] as? Int == 0, "the first round sent y: \(acknowledged)")
        watch.kill(SIGKILL)
        _ = watch.wait()
        for dir in [a, b] {
            let peers = try #require(try json(Invocation(["status", dir, "--json"]).out.first)["peers"] as? [[String: Any]])
            #expect(peers.first?["live"] as? Bool == false, "a killed live sync is not live: \(dir)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/live").isEmpty, "its registration was removed")
        }
    }

    @Test func theWaitForAcknowledgementWaitsForAPausedLiveDirectorySyncAndReturnsOnceItRunsAgain() async throws {
        let (pathA, pathB) = (path("a"), path("b"))
        let a = try Store(path: pathA)
        let b = try Store(path: pathB)
        try await b.setName("the watch")
        try await a.suite("app").set(1, forKey: "x")
        let watch = try ChildProcess("sync-tool", ["sync", pathA, pathB, "--watch", "--json"])
        defer {
            watch.kill(SIGCONT)
            watch.kill(SIGKILL)
        }
        #expect(watch.waitForLine { $0.contains("\"round\":1") }, "\(watch.errorOutput)")
        #expect(a.livePeers() == [b.replicaID])
        try await a.waitUntilAcknowledged(timeout: .seconds(60))

        watch.kill(SIGSTOP)
        try await a.suite("app").set(2, forKey: "x")
        try await a.suite("app").set(3, forKey: "y")
        #expect(a.livePeers() == [b.replicaID], "a paused process still holds its registration")
        do {
            try await a.waitUntilAcknowledged(timeout: .milliseconds(500))
            Issue.record("acknowledged while the live sync was stopped")
        } catch let error as ConcordError {
            guard error.code == .notAcknowledged else { throw error }
            #expect(error.peer == b.replicaID.description && error.parts == ["the watch", "2"], "\(error)")
            #expect("\(error)".contains("2 changes are still unacknowledged") && "\(error)".contains("(the watch)"), "\(error)")
        }
        let waiting = Task { try await a.waitUntilAcknowledged(by: b.replicaID, timeout: .seconds(120)) }
        watch.kill(SIGCONT)
        try await waiting.value
        #expect(try b.suite("app").get("x", as: Int.self) == 2 && b.suite("app").get("y", as: Int.self) == 3)
        #expect(try a.peerStatus().first?.unacknowledged == 0)
    }
}
