import Concord
import Foundation
import ScratchSSH
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What either side of a sync session refuses from the other: records the gate
/// refuses, and batches whose range reaches past what their sender announced. Each is refused whole
/// (exit 3), leaves the replica as it was and `check`-sound, and the next honest sync works. The
/// streams go to real `sync-tool serve` processes, directly and through a real sshd; the client side
/// meets a server that sends what no honest one does (`concord-test-helper hostile-serve`) over ssh.
@Suite("Hostile peers over the sync protocol", .serialized, .offThePool)
struct HostileServeTests {
    let fx: RemoteFixture
    let served: String
    /// A fresh replica id for the hostile client (it claims no one's).
    let stranger = ReplicaID(bytes: [UInt8](repeating: 0x5A, count: 16))!

    init() throws {
        fx = try RemoteFixture()
        served = fx.path("served")
        let store = try Store(path: served)
        try store.suite("prefs").set("before", forKey: "theme")
        try store.suite("prefs").set(3, forKey: "size")
    }

    static func hello(_ replica: ReplicaID, lastSeq: UInt64, version: UInt16 = SyncHello.currentVersion) -> SyncFrame {
        var hello = SyncHello(replica: replica, selection: .all, knowledge: .none, lastSeq: lastSeq)
        hello.version = version
        return .hello(hello)
    }

    /// The client's verdict on the server's claims after the hellos (a stranger's: nothing to check).
    static let verdict = SyncFrame.verdict(SyncVerdict(ContactCheck()))

    /// A batch of `source`; `marked` binds it to a history mark covering its last seq, as an honest sender's is.
    static func batch(_ source: ReplicaID, _ entries: [RemoteEntry], from: UInt64 = 0, to: UInt64 = 1, marked: Bool = false) -> SyncFrame {
        .batch(
            RemoteBatch(
                source: source, selection: .all, fromSeq: from, toSeq: to, entries: entries, knowledge: .none,
                mark: marked ? HistoryMark.random(seq: to) : nil))
    }

    static func entry(_ suite: String, _ key: String, _ value: Value, hlc: UInt64 = HybridClock.wallMilliseconds() << 16, seq: UInt64 = 1, by: ReplicaID)
        throws -> RemoteEntry
    {
        RemoteEntry(seq: seq, suite: suite, key: key, record: try Record(version: Version(hlc: hlc, replica: by), value: value))
    }

    /// `sync-tool serve SERVED --timeout 5` fed `frames` on its standard input, run here or through sshd.
    func serve(_ frames: [SyncFrame], overSSH: Bool = false) throws -> ProcessResult {
        let file = fx.path("input-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file, contents: Data(frames.flatMap { $0.encoded() }))
        let command =
            overSSH ? "exec \(fx.ssh.rsh) \(fx.ssh.user)@127.0.0.1 \"$0\" serve \"$1\" --timeout 5 < \"$2\"" : "exec \"$0\" serve \"$1\" --timeout 5 < \"$2\""
        return try run("/bin/sh", ["-c", command, Binaries.path("sync-tool"), served, file])
    }

    /// The served replica holds `before` and its cursors `cursors`, `sync-tool check` passes, and an
    /// honest sync over ssh still works and brings it a new change.
    func expectUnchangedAndSyncing(_ before: [SuiteKey: Record], _ cursors: PeerCursorTable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = try Store(path: served)
        #expect(try contents(store) == before, "the served replica is unchanged", sourceLocation: sourceLocation)
        #expect(try store.peerCursors() == cursors, "its cursors did not move", sourceLocation: sourceLocation)
        let check = try run("sync-tool", ["check", served])
        #expect(check.status == 0, "sync-tool check: \(check.stderr)", sourceLocation: sourceLocation)
        let honest = fx.path("honest-\(UUID().uuidString.prefix(8))")
        try Store(path: honest).suite("prefs").set("from an honest peer", forKey: "greeting")
        let sync = try fx.sync(honest, fx.remote("served"))
        #expect(sync.status == 0, "a later sync works: \(sync.stderr)", sourceLocation: sourceLocation)
        #expect(try store.suite("prefs").get("greeting", as: String.self) == "from an honest peer", sourceLocation: sourceLocation)
        #expect(try Store(path: honest).suite("prefs").get("theme", as: String.self) == "before", sourceLocation: sourceLocation)
    }

    func snapshot() throws -> ([SuiteKey: Record], PeerCursorTable) {
        let store = try Store(path: served)
        return (try contents(store), try store.peerCursors())
    }

    @Test("a record whose hlc is 0xFFFF_FFFF_FFFF_FFFF, or a key holding U+0000: the batch is refused (exit 3), here and through sshd")
    func recordsTheGateRefuses() throws {
        let (before, cursors) = try snapshot()
        let cases: [(String, RemoteEntry, String)] = [
            ("hlc max", try Self.entry("prefs", "theme", .string("pinned forever"), hlc: .max, by: stranger), "past the greatest any clock produces"),
            ("U+0000", try Self.entry("prefs", "a\u{0}b", .string("x"), by: stranger), "U+0000")
        ]
        for (what, entry, words) in cases {
            for overSSH in [false, true] {
                let sound = try Self.entry("prefs", "sound", .string("fine"), seq: 2, by: stranger)
                let result = try serve([Self.hello(stranger, lastSeq: 2), Self.verdict, Self.batch(stranger, [entry, sound], to: 2), .end], overSSH: overSSH)
                #expect(result.status == 3, "\(what)\(overSSH ? " over ssh" : ""): \(result.stderr)")
                #expect(result.stderr.contains(words) && result.stderr.contains("nothing of it was merged"), "\(what): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            }
        }
        try expectUnchangedAndSyncing(before, cursors)
    }

    @Test("suite names '../x', empty, 129 and 255 bytes, and a 20 MiB value: the batch is refused (exit 3)")
    func namesAndSizes() throws {
        let (before, cursors) = try snapshot()
        var entries: [(String, RemoteEntry)] = []
        for suite in ["../x", "", String(repeating: "s", count: 129), String(repeating: "s", count: 255)] {
            entries.append(("suite of \(suite.utf8.count) bytes", try Self.entry(suite, "k", .int(1), by: stranger)))
        }
        entries.append(("20 MiB value", try Self.entry("prefs", "huge", .data(Data(repeating: 7, count: 20 << 20)), by: stranger)))
        for (what, entry) in entries {
            let result = try serve([Self.hello(stranger, lastSeq: 1), Self.verdict, Self.batch(stranger, [entry]), .end])
            #expect(result.status == 3, "\(what): \(result.stderr)")
            #expect(result.stderr.contains(what.hasPrefix("20") ? "over the limit" : "invalid suite name"), "\(what): \(result.stderr)")
        }
        try expectUnchangedAndSyncing(before, cursors)
    }

    @Test(
        "a client claiming another replica's id sends an empty batch ending at 2^62: refused (exit 3), the server's cursor on that replica stays, its later changes arrive"
    )
    func forgedRange() throws {
        // A real replica syncs with the server, so the server keeps a cursor on it.
        let phone = try Store(path: fx.path("phone"))
        for i in 0..<3 { try phone.suite("prefs").set(i, forKey: "k\(i)") }
        let first = try fx.sync(fx.path("phone"), fx.remote("served"))
        try #require(first.status == 0, "\(first.stderr)")
        let (before, cursors) = try snapshot()
        let cursor = cursors.received(from: phone.replicaID, scope: .allSuites)
        #expect(cursor >= 3, "the server has merged the phone's three changes")
        for overSSH in [false, true] {
            // It announces the phone's real last seq (or claims nothing new): the batch reaches past it.
            let forged = [
                Self.hello(phone.replicaID, lastSeq: try phone.lastSeq()), Self.verdict, Self.batch(phone.replicaID, [], from: 0, to: 1 << 62), .end
            ]
            let result = try serve(forged, overSSH: overSSH)
            #expect(result.status == 3, "\(result.stderr)")
            #expect(result.stderr.contains("past the last seq it announced"), "\(result.stderr)")
        }
        let store = try Store(path: served)
        #expect(try store.peerCursors().received(from: phone.replicaID, scope: .allSuites) == cursor, "the cursor on the phone did not move")
        try phone.suite("prefs").set("after the forgery", forKey: "later")
        let next = try fx.sync(fx.path("phone"), fx.remote("served"))
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try store.suite("prefs").get("later", as: String.self) == "after the forgery", "the phone's later changes arrive")
        var expected = before
        expected[SuiteKey(suite: "prefs", key: "later")] = try phone.suite("prefs").record(forKey: "later")
        #expect(try contents(store) == expected)
    }

    @Test("batches of a round that overlap or go back are refused (exit 3): the earlier, acknowledged batch stays merged, nothing of the bad one")
    func overlappingBatches() throws {
        let first = try Self.entry("prefs", "first", .string("one"), seq: 1, by: stranger)
        let second = try Self.entry("prefs", "second", .string("two"), seq: 4, by: stranger)
        let result = try serve([
            Self.hello(stranger, lastSeq: 6), Self.verdict, Self.batch(stranger, [first], from: 0, to: 3, marked: true),
            Self.batch(stranger, [second], from: 2, to: 6, marked: true), .end
        ])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("before the end of its previous batch"), "\(result.stderr)")
        let store = try Store(path: served)
        #expect(try store.suite("prefs").get("first", as: String.self) == "one")
        #expect(try !store.suite("prefs").contains("second"))
        #expect(try store.peerCursors().received(from: stranger, scope: .allSuites) == 3)
        let check = try run("sync-tool", ["check", served])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test("a batch bound to a history mark covering a seq past what its sender announced is refused (exit 3), nothing of it merged")
    func markPastAnnounced() throws {
        let (before, cursors) = try snapshot()
        let entry = try Self.entry("prefs", "k", .int(1), by: stranger)
        let marked = RemoteBatch(
            source: stranger, selection: .all, fromSeq: 0, toSeq: 1, entries: [entry], knowledge: .none, mark: HistoryMark.random(seq: 1 << 62))
        let result = try serve([Self.hello(stranger, lastSeq: 1), Self.verdict, .batch(marked), .end])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("history mark covering seq \(1 << 62), past the last seq it announced (1)"), "\(result.stderr)")
        try expectUnchangedAndSyncing(before, cursors)
    }

    @Test("a version-1 peer, which cannot announce, is refused at the handshake and told to upgrade (exit 3)")
    func protocolVersionOne() throws {
        let (before, cursors) = try snapshot()
        let result = try serve([Self.hello(stranger, lastSeq: 1, version: 1), Self.batch(stranger, [try Self.entry("prefs", "k", .int(1), by: stranger)]), .end]
        )
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("upgrade Concord where version 1 runs"), "\(result.stderr)")
        try expectUnchangedAndSyncing(before, cursors)
    }

    @Test("a relay's batch is checked by the receiving server: a record with hlc max from the introduced replica is refused (exit 3)")
    func relayedBatch() throws {
        let (before, cursors) = try snapshot()
        var relay = SyncHello(replica: SyncHello.relayPlaceholder, selection: .all, knowledge: .none, lastSeq: 0)
        relay.relay = true
        let entry = try Self.entry("prefs", "theme", .string("pinned"), hlc: .max, by: stranger)
        for overSSH in [false, true] {
            let result = try serve([.hello(relay), Self.hello(stranger, lastSeq: 1), Self.verdict, Self.batch(stranger, [entry])], overSSH: overSSH)
            #expect(result.status == 3, "\(result.stderr)")
            #expect(result.stderr.contains("past the greatest any clock produces"), "\(result.stderr)")
        }
        try expectUnchangedAndSyncing(before, cursors)
    }

    @Test("the client refuses a server's batch holding hlc max or U+0000, or ending past what the server announced: exit 3, the local replica unchanged")
    func hostileServer() throws {
        let wrapper = fx.path("hostile-serve")
        for mode in ["max-hlc", "nul-key", "past-announced"] {
            try "#!/bin/sh\nexec '\(Binaries.path("concord-test-helper"))' hostile-serve \(mode) \"$@\"\n".write(
                toFile: wrapper, atomically: true, encoding: .utf8)
            chmod(wrapper, 0o755)
            let dir = fx.path("client-\(mode)")
            let local = try Store(path: dir)
            try local.suite("prefs").set("mine", forKey: "theme")
            let (before, cursors) = (try contents(local), try local.peerCursors())
            let result = try run(
                "sync-tool", ["sync", dir, fx.remote("anywhere"), "--rsh", fx.ssh.rsh, "--remote-command", wrapper, "--timeout", "20"], timeout: 60)
            #expect(result.status == 3, "\(mode): \(result.stderr)")
            let words = ["max-hlc": "past the greatest any clock produces", "nul-key": "U+0000", "past-announced": "past the last seq it announced"][mode]!
            #expect(result.stderr.contains(words), "\(mode): \(result.stderr)")
            #expect(try contents(local) == before, "\(mode): the local replica is unchanged")
            #expect(try local.peerCursors() == cursors, "\(mode): no cursor moved")
            let check = try run("sync-tool", ["check", dir])
            #expect(check.status == 0, "\(mode): \(check.stderr)")
        }
    }

    @Test("live sync (--watch) meets a server sending hlc max: each round is refused and retried, the local replica never changes")
    func liveClientMeetsAHostileServer() throws {
        let wrapper = fx.path("hostile-serve-live")
        try "#!/bin/sh\nexec '\(Binaries.path("concord-test-helper"))' hostile-serve max-hlc \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)
        let dir = fx.path("live-client")
        let local = try Store(path: dir)
        try local.suite("prefs").set("mine", forKey: "theme")
        let (before, cursors) = (try contents(local), try local.peerCursors())
        let child = try ChildProcess(
            "sync-tool", ["sync", dir, fx.remote("anywhere"), "--watch", "--rsh", fx.ssh.rsh, "--remote-command", wrapper, "--heartbeat", "1"])
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && child.errorOutput.components(separatedBy: "past the greatest any clock produces").count < 3 { usleep(20_000) }
        child.kill()
        _ = child.wait()
        let refusals = child.errorOutput.split(separator: "\n").filter { $0.contains("disconnected:") && $0.contains("past the greatest any clock produces") }
        #expect(refusals.count >= 2, "every round is refused and retried: \(child.errorOutput.suffix(600))")
        #expect(try contents(local) == before && local.peerCursors() == cursors, "the local replica never changed")
        let check = try run("sync-tool", ["check", dir])
        #expect(check.status == 0, "\(check.stderr)")
    }
}
