import Concord
import Foundation
import TestSupport
import Testing

/// A damaged page that `check` finds, where LMDB's cursor asserts `IS_LEAF` (a leaf page whose flags say
/// branch), in the records and in the journal: no process dies anonymously, and the replica can be
/// rebuilt from what can still be read and its peers.
@Suite(.offThePool) struct DamagedPageTests {
    /// A replica like `DamagedStoreTests.makeStore`'s, with a peer that holds what it had synced, then a
    /// leaf page of each of its records and journal damaged. Returns the keys whose row and journal
    /// entry were both on a damaged page (lost locally; the peer holds them).
    struct Damaged {
        let dir: String
        let peer: String
        let replicaID: ReplicaID
        let lostLocally: Set<String>
        let damagedRecordKeys: Set<String>
        let damagedJournalKeys: Set<String>
    }

    static func damagedReplica(in tmp: TemporaryDirectory) throws -> Damaged {
        let dir = tmp.path("replica")
        let peer = tmp.path("peer")
        try DamagedStoreTests.makeStore(at: dir)
        #expect(try run("sync-tool", ["sync", dir, peer, "--create"], timeout: 60).exited(0))
        // Afterwards each side writes what the other has not seen.
        let replicaID = try withExtendedLifetime(try Store(path: dir)) { store in
            try store.suite("app").batch { b in for i in 0..<20 { try b.set("late \(i)", forKey: "late-\(i)") } }
            return store.replicaID
        }
        try withExtendedLifetime(try Store(path: peer)) { store in
            try store.suite("app").batch { b in for i in 0..<10 { try b.set("peer \(i)", forKey: "peer-\(i)") } }
        }
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb")))
        let records = DataFilePages.leafPages(file, database: "records")
        let journal = DataFilePages.leafPages(file, database: "journal")
        try #require(records.count >= 5 && journal.count >= 5, "the trees have several leaves: \(records.count), \(journal.count)")
        // A records leaf in the middle, and the journal leaf that shares the most keys with it.
        let recordLeaf = records[records.count / 2]
        let recordKeys = Set(recordLeaf.entries.map { String(decoding: $0.key.drop { $0 != 0 }.dropFirst(), as: UTF8.self) })
        let journalLeaf = try #require(
            journal.dropLast().max { a, b in
                Set(a.entries.map { DataFilePages.journalKey($0.value) }).intersection(recordKeys).count
                    < Set(b.entries.map { DataFilePages.journalKey($0.value) }).intersection(recordKeys).count
            })
        let journalKeys = Set(journalLeaf.entries.map { DataFilePages.journalKey($0.value) })
        let lost = recordKeys.intersection(journalKeys)
        try #require(!lost.isEmpty, "some keys have both their row and their journal entry on the damaged pages")
        try DataFilePages.markBranch(recordLeaf.page, in: dir + "/data.mdb")
        try DataFilePages.markBranch(journalLeaf.page, in: dir + "/data.mdb")
        return Damaged(dir: dir, peer: peer, replicaID: replicaID, lostLocally: lost, damagedRecordKeys: recordKeys, damagedJournalKeys: journalKeys)
    }

    static func expectDamagedLine(_ outcome: ProcessResult, _ what: String, dir: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.exited(4), "\(what): exit 4, not an abort: \(outcome)", sourceLocation: sourceLocation)
        let lines = outcome.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(what): one line on stderr: \(outcome.stderr)", sourceLocation: sourceLocation)
        #expect(
            outcome.stderr.contains("the store at \(dir) is damaged") && outcome.stderr.contains("sync-tool recover \(dir)"),
            "\(what): names the store as damaged and says how to recover: \(outcome.stderr)", sourceLocation: sourceLocation)
    }

    @Test("every command on a store with damaged pages names it as damaged and says how to recover, on one line (exit 4, no abort), and changes nothing")
    func commandsReportTheDamage() throws {
        let tmp = try TemporaryDirectory("concord-damaged-page")
        defer { tmp.remove() }
        let damaged = try Self.damagedReplica(in: tmp)
        let dir = damaged.dir
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb"))
        let check = try run("sync-tool", ["check", dir], timeout: 60)
        #expect(check.exited(4) && check.stderr.contains("expected a leaf page"), "check finds the damaged pages: \(check)")
        let commands: [[String]] = [
            ["list", dir, "app"], ["info", dir], ["stat", dir], ["gc", dir], ["reset", dir, "app"], ["log", dir],
            // A new peer: its first sync reads the whole journal (the peer that synced before reads only its end).
            ["export", dir, "--out", tmp.path("out.bundle")], ["sync", dir, tmp.path("new-peer"), "--create"]
        ]
        for command in commands {
            Self.expectDamagedLine(try run("sync-tool", command, timeout: 60), "sync-tool \(command[0])", dir: dir)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb")) == before, "nothing was written to the damaged store")
        #expect(!FileManager.default.fileExists(atPath: tmp.path("out.bundle")), "no bundle was left behind")
        let line = try run("sync-tool", ["list", dir, "app"], timeout: 60).stderr.trimmed
        figure("damaged pages, every command", "list, info, stat, gc, reset, log, export and sync exit 4 with one line: \(line.prefix(260))")
    }

    @Test("an app observing the store that meets a damaged page names the store as damaged and how to recover before it stops")
    func observerNamesTheStore() throws {
        let tmp = try TemporaryDirectory("concord-damaged-observer")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try DamagedStoreTests.makeStore(at: dir)
        // Without Swift's backtracer, LMDB's abort ends the app at once, and its status is the signal's:
        // the backtracer, symbolicating for seconds on a loaded machine, sometimes left a status of 0.
        let app = try ChildProcess("concord-test-helper", ["observe-and-list", dir, "app"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        defer { app.kill() }
        try #require(app.waitForLine { $0 == "ready" }, "\(app.errorOutput)")
        // Damage a records leaf in the middle while the app has the store open, then commit a change
        // elsewhere: the app reads the suite again on the change and steps onto the damaged page.
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb")))
        let records = DataFilePages.leafPages(file, database: "records")
        try DataFilePages.markBranch(records[records.count / 2].page, in: dir + "/data.mdb")
        #expect(try run("sync-tool", ["set", dir, "other", "ping", "1"], timeout: 60).exited(0))
        let ended = app.wait(timeout: 60)
        #expect(ended.status != 0, "the app stops at the damaged page: \(ended.status) \(ended.stderr)")
        #expect(ended.stderr.contains("Concord: the store at \(dir) is damaged"), "the store is named as damaged: \(ended.stderr)")
        #expect(ended.stderr.contains("sync-tool recover \(dir) --from PEER"), "with how to recover: \(ended.stderr)")
        figure("damaged page, observing app", "status \(ended.status): \(ended.stderr.split(separator: "\n").first.map(String.init)?.prefix(240) ?? "")")
    }

    @Test(
        "recover rebuilds a damaged replica from what can still be read (check passes), then a normal sync brings the rest from a peer, losing nothing the peer holds"
    )
    func recoverFromPeer() throws {
        let tmp = try TemporaryDirectory("concord-recover")
        defer { tmp.remove() }
        let damaged = try Self.damagedReplica(in: tmp)
        let (dir, peer) = (damaged.dir, damaged.peer)
        let peerBefore = try StoreContents.list(peer, suite: "app")
        // What the replica held before the damage: the pristine copy's contents (sync and writes above).
        var expected = peerBefore.filter { !$0.key.hasPrefix("peer-") }
        for i in 0..<20 { expected["late-\(i)"] = "late \(i)" }

        let recovered = try run("sync-tool", ["recover", dir], timeout: 60)
        #expect(recovered.exited(0), "\(recovered)")
        try StoreContents.expectSound(dir)
        // Every record that could be read is back, exactly; only the keys lost with both copies are missing.
        let rebuilt = try StoreContents.list(dir, suite: "app")
        StoreContents.expectEqual(rebuilt, expected.filter { !damaged.lostLocally.contains($0.key) })
        let copies = try FileManager.default.contentsOfDirectory(atPath: tmp.root).filter { $0.hasPrefix("replica.damaged-") }
        #expect(copies.count == 1, "the damaged replica is kept beside it: \(copies)")
        let info = try run("sync-tool", ["info", dir], timeout: 60)
        #expect(info.exited(0) && !info.stdout.contains(damaged.replicaID.description), "the rebuilt replica has a new id: \(info.stdout)")

        // A normal sync: the first with this peer is a full one both ways.
        let sync = try run("sync-tool", ["sync", dir, peer], timeout: 60)
        #expect(sync.exited(0), "\(sync)")
        try StoreContents.expectSound(dir)
        try StoreContents.expectSound(peer)
        var everything = expected
        for i in 0..<10 { everything["peer-\(i)"] = "peer \(i)" }
        StoreContents.expectEqual(try StoreContents.list(dir, suite: "app"), everything)
        let peerAfter = try StoreContents.list(peer, suite: "app")
        StoreContents.expectEqual(peerAfter, everything)
        for (key, value) in peerBefore { #expect(peerAfter[key] == value, "the peer lost nothing: \(key)") }
        figure(
            "recover from a peer",
            "\(damaged.lostLocally.count) keys lost with both copies, \(damaged.damagedRecordKeys.count + damaged.damagedJournalKeys.count - 2 * damaged.lostLocally.count) read from the other copy; "
                + (recovered.lines.first ?? "") + "; then one sync: \(sync.lines.dropFirst().prefix(2).joined(separator: "; "))")
    }

    @Test("recover with --from syncs the rebuilt replica with the peer; a sound or busy replica is refused and left alone")
    func recoverWithFromAndRefusals() throws {
        let tmp = try TemporaryDirectory("concord-recover-from")
        defer { tmp.remove() }
        let damaged = try Self.damagedReplica(in: tmp)
        let holder = try ChildProcess("concord-test-helper", ["hold-read", damaged.peer])
        defer { holder.kill() }
        try #require(holder.waitForLine { $0 == "holding" })
        let busy = try run("sync-tool", ["recover", damaged.peer], timeout: 60)
        #expect(busy.exited(4) && busy.stderr.contains("a process has it open"), "\(busy)")
        holder.kill()
        _ = holder.wait(timeout: 10)
        let sound = try run("sync-tool", ["recover", damaged.peer], timeout: 60)
        #expect(sound.exited(3) && sound.stderr.contains("nothing to recover"), "\(sound)")

        let recovered = try run("sync-tool", ["recover", damaged.dir, "--from", damaged.peer], timeout: 60)
        #expect(recovered.exited(0), "\(recovered)")
        try StoreContents.expectSound(damaged.dir)
        let mine = try StoreContents.list(damaged.dir, suite: "app")
        StoreContents.expectEqual(mine, try StoreContents.list(damaged.peer, suite: "app"))
        #expect(mine.count == 401 + 20 + 10, "every key of both sides: \(mine.count)")
    }
}
