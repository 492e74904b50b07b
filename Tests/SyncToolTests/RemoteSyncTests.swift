import Concord
import Foundation
import ScratchSSH
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real OpenSSH server on loopback and the built sync-tool on both sides of it.
struct RemoteFixture {
    let ssh: ScratchSSH
    let tmp: TemporaryDirectory

    init() throws {
        ssh = try ScratchSSH()
        tmp = try TemporaryDirectory()
    }

    func path(_ name: String) -> String { tmp.path(name) }
    func remote(_ name: String) -> String { ssh.address(path(name)) }

    /// `sync-tool sync LOCAL REMOTE` through the fixture's sshd (extra arguments appended).
    func sync(_ local: String, _ remote: String, _ extra: [String] = [], rsh: String? = nil, timeout: Double = 120) throws -> ProcessResult {
        try run("sync-tool", ["sync", local, remote, "--rsh", rsh ?? ssh.rsh, "--remote-command", Binaries.path("sync-tool")] + extra, timeout: timeout)
    }

    /// Writes `count` keys ("k0" …) of suite "prefs" in commits of at most 100,000.
    static func fill(_ store: Store, count: Int, prefix: String = "k", value: (Int) -> String = { "value \($0)" }) throws {
        var start = 0
        while start < count {
            let end = min(count, start + 100_000)
            try store.suite("prefs").batch { b in for i in start..<end { try b.set(value(i), forKey: "\(prefix)\(i)") } }
            start = end
        }
    }

    /// Device-local and expiring keys on two replicas, for every transport to carry (or not): A declares
    /// the prefix "local." device-local (B has not seen it) and each holds its own "local.path"; A has
    /// "token", expiring in an hour, and "session", which expired before the sync (over B's older value).
    static func prepareSettings(_ a: Store, _ b: Store) throws {
        try b.suite("app").set("old", forKey: "session")
        try b.suite("app").set("/b", forKey: "local.path")
        try a.suite("app").setDeviceLocal(true, forKeysWithPrefix: "local.")
        try a.suite("app").set("/a", forKey: "local.path")
        try a.suite("app").set("abc", forKey: "token", expiresAfter: .seconds(3600))
        let gone = Collector<Change>()
        let token = try a.suite("app").changes(for: "session").start { gone.append($0) }
        try a.suite("app").set("new", forKey: "session", expiresAfter: .milliseconds(100))
        #expect(gone.wait(for: 2), "the session value expired on A")
        withExtendedLifetime(token) {}
    }

    /// What a sync of `prepareSettings`'s replicas must leave: each its own device-local value, the
    /// declaration on both, the token with its expiry on both, and the session absent on both.
    static func expectSettings(_ a: Store, _ b: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try a.suite("app").get("local.path", as: String.self) == "/a", sourceLocation: sourceLocation)
        #expect(try b.suite("app").get("local.path", as: String.self) == "/b", sourceLocation: sourceLocation)
        #expect(try b.suite("app").isDeviceLocal("local.path"), sourceLocation: sourceLocation)
        #expect(try b.suite("app").get("token", as: String.self) == "abc", sourceLocation: sourceLocation)
        #expect(try b.suite("app").record(forKey: "token") == a.suite("app").record(forKey: "token"), sourceLocation: sourceLocation)
        #expect(try b.suite("app").record(forKey: "token")?.expires != nil, sourceLocation: sourceLocation)
        for store in [a, b] {
            #expect(try store.suite("app").get("session", as: String.self) == nil, "\(store.directory)", sourceLocation: sourceLocation)
        }
        #expect(try b.suite("app").record(forKey: "session") == a.suite("app").record(forKey: "session"), sourceLocation: sourceLocation)
    }

    static func json(_ result: ProcessResult) throws -> [String: Any] {
        let line = try #require(result.lines.last, "no output; stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

@Suite("Remote sync over a real sshd", .serialized, .offThePool)
struct RemoteSyncTests {
    let fx: RemoteFixture
    init() throws { fx = try RemoteFixture() }

    @Test(
        "over serve: device-local keys stay on each side (a value from a side that had not seen the declaration is ignored), expiring values keep their expiry")
    func deviceLocalAndExpiringKeys() throws {
        let a = try Store(path: fx.path("a"))
        let b = try Store(path: fx.path("b"))
        try RemoteFixture.prepareSettings(a, b)
        let dry = try fx.sync(fx.path("a"), fx.remote("b"), ["--dry-run", "--json"])
        #expect(try RemoteFixture.json(dry)["sent_a_to_b"] as? Int == 3, "the declaration, token and session: \(dry.stdout)")
        let synced = try fx.sync(fx.path("a"), fx.remote("b"), ["--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        try RemoteFixture.expectSettings(a, b)
        // A new device-local value on either side stays there; nothing is pending either way.
        try a.suite("app").set("/a2", forKey: "local.path")
        try b.suite("app").set("/b2", forKey: "local.path")
        let again = try fx.sync(fx.path("a"), fx.remote("b"), ["--dry-run"])
        #expect(again.status == 0, "in sync: \(again.stdout) \(again.stderr)")
    }

    @Test("a full sync into a new remote replica, then a delta that sends only what changed, both ways")
    func fullThenDelta() throws {
        let a = try Store(path: fx.path("a"))
        try RemoteFixture.fill(a, count: 500)
        let full = try fx.sync(fx.path("a"), fx.remote("b"), ["--create", "--json"])
        #expect(full.status == 0, "\(full.stderr)")
        let first = try RemoteFixture.json(full)
        #expect(first["sent_a_to_b"] as? Int == 500)
        #expect(first["records_changed_b"] as? Int == 500)
        let b = try Store(path: fx.path("b"))
        #expect(try contents(a) == contents(b))

        try a.suite("prefs").set("changed", forKey: "k1")
        try a.suite("prefs").set("new", forKey: "extra")
        try b.suite("prefs").set("from b", forKey: "k2")
        let delta = try fx.sync(fx.path("a"), fx.remote("b"), ["--json"])
        #expect(delta.status == 0, "\(delta.stderr)")
        let second = try RemoteFixture.json(delta)
        #expect(second["sent_a_to_b"] as? Int == 2)
        #expect(second["sent_b_to_a"] as? Int == 1)
        #expect(second["records_changed"] as? Int == 3)
        #expect(try contents(a) == contents(b))
        #expect(try b.suite("prefs").get("extra", as: String.self) == "new")
        #expect(try a.suite("prefs").get("k2", as: String.self) == "from b")

        // The remote as the first argument: A and B keep their meaning in the report.
        try b.suite("prefs").set("again", forKey: "k3")
        let reversed = try RemoteFixture.json(try fx.sync(fx.remote("b"), fx.path("a"), ["--json"]))
        #expect(reversed["sent_a_to_b"] as? Int == 1)
        #expect(reversed["records_changed_b"] as? Int == 1)
        #expect(try a.suite("prefs").get("k3", as: String.self) == "again")
    }

    @Test("--dry-run exits 10 with changes pending and writes nothing on either side, 0 when in sync")
    func dryRun() throws {
        let a = try Store(path: fx.path("a"))
        try a.suite("prefs").set("dark", forKey: "theme")
        #expect(try fx.sync(fx.path("a"), fx.remote("b"), ["--create"]).status == 0)
        try a.suite("prefs").set("light", forKey: "theme")
        let b = try Store(path: fx.path("b"))
        try b.suite("prefs").set(3, forKey: "size")
        let (seqA, seqB) = (try a.lastSeq(), try b.lastSeq())
        let pending = try fx.sync(fx.path("a"), fx.remote("b"), ["--dry-run"])
        #expect(pending.status == 10, "\(pending.stderr)")
        #expect(pending.stdout.contains("A -> B: 1 changes sent, 1 records would change in B"))
        #expect(pending.stdout.contains("B -> A: 1 changes sent, 1 records would change in A"))
        #expect(try a.lastSeq() == seqA && b.lastSeq() == seqB)
        #expect(try b.suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try fx.sync(fx.path("a"), fx.remote("b")).status == 0)
        let clean = try fx.sync(fx.path("a"), fx.remote("b"), ["--dry-run"])
        #expect(clean.status == 0)
        #expect(clean.lines.last == "in sync")
    }

    @Test("a refused login, an unreachable host and a missing remote directory each say which, with their exit codes")
    func refusals() throws {
        let a = try Store(path: fx.path("a"))
        try a.suite("prefs").set("dark", forKey: "theme")
        let refused = try fx.sync(fx.path("a"), fx.remote("b"), ["--create"], rsh: fx.ssh.refusedRsh)
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("the login to 127.0.0.1 was refused"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        let unreachable = try fx.sync(fx.path("a"), fx.remote("b"), [], rsh: "ssh -p 1 -o BatchMode=yes -o StrictHostKeyChecking=no")
        #expect(unreachable.status == 5)
        #expect(unreachable.stderr.contains("cannot reach 127.0.0.1"), "\(unreachable.stderr)")
        let missing = try fx.sync(fx.path("a"), fx.remote("nowhere"))
        #expect(missing.status == 4)
        #expect(missing.stderr.contains("--create"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fx.path("nowhere")))
        let localMissing = try fx.sync(fx.path("nothing-here"), fx.remote("b"))
        #expect(localMissing.status == 4)
        #expect(!FileManager.default.fileExists(atPath: fx.path("nothing-here")))
        #expect(!FileManager.default.fileExists(atPath: fx.path("b")))
        let bad = try run("sync-tool", ["sync", fx.path("a"), "ssh://host:99999/x"])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("port"))
    }

    @Test("the far serve killed mid-session: whole batches merged, cursors forward, and the next sync converges without resending them")
    func killedMidSession() throws {
        let a = try Store(path: fx.path("a"))
        try RemoteFixture.fill(a, count: 200_000)
        let bPath = fx.path("b")
        let child = try ChildProcess(
            "sync-tool",
            [
                "sync", fx.path("a"), fx.remote("b"), "--create", "--rsh", fx.ssh.rsh,
                "--remote-command", Binaries.path("sync-tool")
            ])
        // Wait until the far side has merged a batch, then SIGKILL the far serve (not the local ssh).
        var merged: UInt64 = 0
        let deadline = Date().addingTimeInterval(60)
        while merged == 0 && Date() < deadline {
            if FileManager.default.fileExists(atPath: bPath + "/data.mdb"), let b = try? Store(path: bPath) { merged = (try? b.lastSeq()) ?? 0 }
            if merged == 0 { usleep(5_000) }
        }
        #expect(merged > 0)
        let serve = try #require(Self.process(commandLineContaining: ["serve", bPath]))
        kill(serve, SIGKILL)
        let cut = child.wait()
        #expect(cut.status == 5, "\(cut.stderr)")
        #expect(cut.stderr.contains("127.0.0.1"), "\(cut.stderr)")
        let b = try Store(path: bPath)
        let cursor = try b.peerCursors().received(from: a.replicaID, scope: .allSuites)
        let count = try b.suite("prefs").keys().count
        #expect(count > 0 && count < 200_000, "the kill came after the whole sync (\(count) keys): make the store larger")
        #expect(count % 20_000 == 0, "only whole batches are merged (\(count) keys)")
        #expect(cursor > 0)
        let resumed = try RemoteFixture.json(try fx.sync(fx.path("a"), fx.remote("b"), ["--json"]))
        #expect(resumed["sent_a_to_b"] as? Int == 200_000 - count)
        #expect(try contents(a) == contents(b))
    }

    /// The pid of a process whose command line holds every word of `words` (this test's own directories).
    static func process(commandLineContaining words: [String]) -> Int32? {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry), let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
                let parts = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                if parts.first?.hasSuffix("sync-tool") == true && words.allSatisfy(parts.contains) { return pid }
            }
            usleep(5_000)
        }
        return nil
    }
}

/// Every record of a store, as a map (for convergence checks).
func contents(_ store: Store) throws -> [SuiteKey: Record] {
    var out: [SuiteKey: Record] = [:]
    for suite in try store.suiteNames() {
        for (key, record) in try store.suite(suite).records() { out[SuiteKey(suite: suite, key: key)] = record }
    }
    return out
}

@Suite("Remote sync: a million keys in bounded memory", .serialized, .offThePool)
struct MillionKeyRemoteSyncTests {
    @Test("1,000,000 keys sync over ssh into an empty replica in batches; neither side holds more than a few batches in memory")
    func millionKeys() async throws {
        // Minutes of writing and waiting for the sync: on a thread of its own, off the pool.
        let fx = try RemoteFixture()
        let a = try Store(path: fx.path("a"))
        try await offThePool { try RemoteFixture.fill(a, count: 1_000_000) }
        // Both sides run under a sampler that records the peak of their anonymous memory (the heap:
        // what the process holds, RssAnon) and their peak resident set (VmHWM, which also counts the
        // pages of the memory-mapped store it touched).
        let sampler = fx.path("sample-memory")
        let serverRSS = fx.path("server.rss")
        let clientRSS = fx.path("client.rss")
        let wrapper = fx.path("measured-sync-tool")
        try """
        #!/bin/sh
        out=$1; shift
        exec 3<&0
        "$@" <&3 3<&- &
        pid=$!; anon=0; hwm=0
        while kill -0 $pid 2>/dev/null; do
          set -- $(awk '/^RssAnon:/{a=$2} /^VmHWM:/{h=$2} END{print a+0, h+0}' /proc/$pid/status 2>/dev/null) 0 0
          [ "$1" -gt "$anon" ] && anon=$1; [ "$2" -gt "$hwm" ] && hwm=$2
          sleep 0.02
        done
        wait $pid; rc=$?
        echo "$anon $hwm" > "$out"; exit $rc

        """.write(toFile: sampler, atomically: true, encoding: .utf8)
        try "#!/bin/sh\nexec '\(sampler)' '\(serverRSS)' '\(Binaries.path("sync-tool"))' \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(sampler, 0o755)
        chmod(wrapper, 0o755)
        let arguments = [
            clientRSS, Binaries.path("sync-tool"), "sync", fx.path("a"), fx.remote("b"),
            "--create", "--json", "--rsh", fx.ssh.rsh, "--remote-command", wrapper
        ]
        let result = try await offThePool { try run(sampler, arguments, timeout: 600) }
        #expect(result.status == 0, "\(result.stderr)")
        let report = try RemoteFixture.json(result)
        #expect(report["sent_a_to_b"] as? Int == 1_000_000)
        #expect(report["batches_a_to_b"] as? Int == 50)
        let b = try Store(path: fx.path("b"))
        #expect(try b.suite("prefs").keys().count == 1_000_000)
        #expect(try b.suite("prefs").get("k999999", as: String.self) == "value 999999")
        let kib = { (path: String) -> [Int] in
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        }
        let (client, server) = (kib(clientRSS), kib(serverRSS))
        try #require(client.count == 2 && server.count == 2, "no memory samples: \(client) \(server)")
        let dataMiB = ((try FileManager.default.attributesOfItem(atPath: fx.path("b") + "/data.mdb")[.size] as? NSNumber)?.intValue ?? 0) >> 20
        print(
            "million-key sync over ssh: client peak heap (RssAnon) \(client[0] / 1024) MiB, peak RSS (VmHWM) \(client[1] / 1024) MiB; "
                + "server peak heap \(server[0] / 1024) MiB, peak RSS \(server[1] / 1024) MiB; receiving store \(dataMiB) MiB")
        // The whole delta as Swift values would be several hundred MiB; a batch is at most ~2 MiB.
        #expect(client[0] > 0 && client[0] < 64 * 1024, "client peak heap \(client[0]) KiB")
        #expect(server[0] > 0 && server[0] < 64 * 1024, "server peak heap \(server[0]) KiB")
    }
}
