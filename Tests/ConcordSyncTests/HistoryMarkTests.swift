import Concord
import Foundation
import TestSupport
import Testing

/// Cursors bound to history marks (the architecture document, "Trust and time"), seen through the
/// library: what a sync reports when a replica went back in time, how the cursors on it are replaced,
/// which marks are kept, and that a restore is found whatever the seqs say.
@Suite("History marks: cursors bound to the history they were merged from", .offThePool)
struct HistoryMarkTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("concord-marks") }

    /// Writes `keys` to suite "app" of the replica at `path` (opened and released here).
    func write(_ path: String, _ keys: ClosedRange<Int>, prefix: String = "k", value: String = "v") throws {
        let store = try Replicas.open(path)
        try store.suite("app").batch { b in for i in keys { try b.set("\(value)\(i)", forKey: "\(prefix)\(i)") } }
    }

    func sync(_ a: String, _ b: String) throws -> SyncReport {
        try Synchronizer().sync(try Replicas.open(a), try Replicas.open(b))
    }

    @Test("the report names the restored replica; its peer's cursor on it is replaced (it goes back); nothing is lost; the next sync is a delta")
    func aRestoredReplicaIsNamedAndItsCursorReplaced() throws {
        defer { tmp.remove() }
        let (a, b, saved) = (tmp.path("a"), tmp.path("b"), tmp.path("a.bak"))
        try write(a, 1...10)
        _ = try sync(a, b)
        _ = try Replicas.open(a).backup(to: saved)
        try write(a, 11...20)
        _ = try sync(a, b)
        let (idA, cursorBefore) = try { () -> (ReplicaID, UInt64) in
            let store = try Replicas.open(b)
            let id = try Replicas.open(a).replicaID
            return (id, try store.peerCursors().received(from: id, scope: .allSuites))
        }()
        try ReplicaRestore.restore(a, from: saved)
        try write(a, 1...3, prefix: "new")
        let report = try sync(a, b)
        let resync = try #require(report.historyResync, "the restore was not noticed")
        #expect(resync.restored == [idA])
        #expect(resync.description.contains("was restored from an earlier state"), "\(resync)")
        #expect(report.resyncReason == resync.description, "the public report says it in the same words")
        #expect(report.bToA.recordsChanged == 10, "k11…k20 came back")
        #expect(report.aToB.recordsChanged == 3, "the restored replica's new writes reached B")
        let (storeA, storeB) = (try Replicas.open(a), try Replicas.open(b))
        #expect(try Replicas.bytes(storeA) == Replicas.bytes(storeB))
        let cursor = try storeB.peerCursors().received(from: idA, scope: .allSuites)
        #expect(cursorBefore == 20 && cursor < cursorBefore, "B's cursor on A was replaced, not only moved forward: \(cursorBefore) → \(cursor)")
        let lastA = try storeA.lastSeq()
        #expect(cursor <= lastA)
        let next = try Synchronizer().sync(storeA, storeB)
        #expect(next.historyResync == nil && next.isInSync)
        try Replicas.expectSound(storeA)
        try Replicas.expectSound(storeB)
    }

    @Test("an idle sync writes nothing: no new mark, no commit on either replica")
    func idleSyncsWriteNothing() throws {
        defer { tmp.remove() }
        let (a, b) = (try Replicas.open(tmp.path("a")), try Replicas.open(tmp.path("b")))
        try a.suite("app").set(1, forKey: "x")
        try b.suite("app").set(2, forKey: "y")
        try Synchronizer().sync(a, b)
        try Synchronizer().sync(a, b)
        let stamps = (a.commitStamp, b.commitStamp)
        let marks = try (a.read { try $0.liveMarks() }, b.read { try $0.liveMarks() })
        let idle = try Synchronizer().sync(a, b)
        #expect(idle.isInSync && idle.historyResync == nil)
        #expect((a.commitStamp, b.commitStamp) == stamps, "an idle round committed nothing")
        #expect(try (a.read { try $0.liveMarks() }, b.read { try $0.liveMarks() }) == marks)
    }

    @Test(
        "marks are pruned to a bounded number, keeping the ones peers were given; a peer bound to a pruned mark resyncs, named as unprovable, not as restored")
    func prunedMarksAreBoundedAndCostOnlyAResync() throws {
        defer { tmp.remove() }
        let (a, b, c) = (try Replicas.open(tmp.path("a")), try Replicas.open(tmp.path("b")), try Replicas.open(tmp.path("c")))
        try a.suite("app").set(0, forKey: "seed")
        try Synchronizer().sync(a, c) // C is given a mark of A, then stays away
        let given = try #require(try c.peerCursors().cursor(peer: a.replicaID, scope: .allSuites)?.mark)
        for i in 1...150 {
            try a.suite("app").set(i, forKey: "k\(i % 7)")
            try Synchronizer().sync(a, b) // each sync writes a new mark of A
        }
        let live = try a.read { try $0.liveMarks() }
        #expect(live.count <= 64 + 4, "\(live.count) marks kept")
        #expect(live.contains(given), "the mark given to C is kept while C may hold it")
        // Forget that C holds it (as if C's cursor were from a bundle A never knew C imported): pruned next time.
        try a.forgetPeer(c.replicaID)
        for i in 1...70 {
            try a.suite("app").set(i, forKey: "j\(i % 5)")
            try Synchronizer().sync(a, b)
        }
        #expect(try !a.read { try $0.liveMarks() }.contains(given))
        let report = try Synchronizer().sync(c, a)
        let resync = try #require(report.historyResync)
        #expect(resync.restored.isEmpty, "a pruned mark shows no rollback: \(resync)")
        #expect(resync.causes.contains { if case .unprovable(a.replicaID, _) = $0 { true } else { false } }, "\(resync)")
        #expect(try Replicas.bytes(a) == Replicas.bytes(c))
    }

    @Test("a cursor written before marks (a format-4 row) proves nothing: the first sync resends everything once, says so, and binds it")
    func cursorsPredatingMarksAreReplacedOnce() throws {
        defer { tmp.remove() }
        let (a, b) = (try Replicas.open(tmp.path("a")), try Replicas.open(tmp.path("b")))
        try a.suite("app").set(1, forKey: "x")
        try Synchronizer().sync(a, b)
        // Rewrite B's cursor on A as a format-4 peer row: [1][received][acknowledged][updated].
        try b.write { w in
            let cursor = try w.peerCursor(a.replicaID, scope: .allSuites)
            var legacy = ByteWriter()
            legacy.u8(1)
            legacy.u64(cursor.received)
            legacy.u64(cursor.acknowledged)
            legacy.u64(cursor.updatedMilliseconds)
            try w.txn.put(w.layout.peers, a.replicaID.bytes, legacy.bytes)
        }
        #expect(try b.peerCursors().cursor(peer: a.replicaID, scope: .allSuites)?.isBound == false)
        #expect(try b.peerCursors().received(from: a.replicaID, scope: .allSuites) == 0, "an unbound cursor counts as nothing merged")
        try a.suite("app").set(2, forKey: "y")
        let first = try Synchronizer().sync(a, b)
        #expect(first.historyResync?.causes == [.predatesMarks])
        #expect(first.aToB.entries == 2, "everything A holds, not only y")
        #expect(try b.peerCursors().cursor(peer: a.replicaID, scope: .allSuites)?.isBound == true)
        let second = try Synchronizer().sync(a, b)
        #expect(second.historyResync == nil && second.isInSync)
    }
}
