import Concord
import Foundation
import TestSupport
import Testing

/// A replica restored from a backup (or copied with `cp -a`) hands out seqs again that its peers'
/// cursors are past: the first sync that meets it must notice, before anything is skipped, and the
/// replicas must converge with nothing lost (the architecture document, "Trust and time"). Every
/// step runs the built `sync-tool` in a process of its own, on real directories.
@Suite("Rollback: directory sync with a replica restored from a backup", .offThePool)
struct RollbackSyncTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("concord-rollback") }

    func path(_ name: String) -> String { tmp.path(name) }

    @discardableResult
    func tool(_ arguments: [String]) throws -> ProcessResult {
        let result = try run("sync-tool", arguments)
        #expect(result.status == 0, "sync-tool \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    func set(_ dir: String, _ keys: [String], value: (String) -> String) throws {
        for key in keys { try tool(["set", path(dir), "app", key, value(key)]) }
    }

    /// Every record (values and versions) of each replica, read in this process once no child holds them.
    func records(_ names: [String]) throws -> [[SuiteKey: Record]] {
        try names.map { name in try contents(try Store(path: path(name))) }
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        let line = try #require(result.lines.last, "no output; stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The issue's reproduction up to the restore: A holds k1…k10 when backed up, k11…k20 reach B,
    /// then A is restored from its backup.
    func restoreAfterSyncingMore() throws {
        try set("r1", (1...10).map { "k\($0)" }) { "v" + $0.dropFirst() }
        try tool(["sync", path("r1"), path("r2"), "--create"])
        try ReplicaRestore.backup(path("r1"), to: path("r1.bak"))
        try set("r1", (11...20).map { "k\($0)" }) { "v" + $0.dropFirst() }
        try tool(["sync", path("r1"), path("r2")])
        try ReplicaRestore.restore(path("r1"), from: path("r1.bak"))
    }

    @Test("the issue's reproduction: the restored replica syncs first; B gets its new write, A gets back k11-k20, one line says so")
    func restoredSideSyncsFirst() throws {
        defer { tmp.remove() }
        try restoreAfterSyncingMore()
        try set("r1", ["new"]) { _ in "fromRestored" }
        let first = try tool(["sync", path("r1"), path("r2")])
        #expect(
            first.lines.contains { $0.hasPrefix("A was restored from an earlier state") && $0.contains("resending everything both ways") }, "\(first.stdout)")
        #expect(first.lines.last == "synced", "\(first.stdout)")
        let again = try tool(["sync", path("r1"), path("r2")])
        #expect(again.lines.last == "in sync", "\(again.stdout)")
        #expect(!again.stdout.contains("restored"), "a second sync finds nothing to resend: \(again.stdout)")
        let (a, b) = try {
            let r = try records(["r1", "r2"])
            return (r[0], r[1])
        }()
        #expect(a == b)
        #expect(a.count == 21)
        #expect(b[SuiteKey(suite: "app", key: "new")].flatMap { try? $0.value() } == .string("fromRestored"))
        for i in 11...20 { #expect(a[SuiteKey(suite: "app", key: "k\(i)")].flatMap { try? $0.value() } == .string("v\(i)")) }
    }

    @Test("the peer syncs first (B as A), having written since; the JSON says who was restored")
    func peerSyncsFirst() throws {
        defer { tmp.remove() }
        try restoreAfterSyncingMore()
        try set("r1", ["new"]) { _ in "fromRestored" }
        try set("r2", ["fromB"]) { _ in "b" }
        let first = try tool(["sync", path("r2"), path("r1"), "--json"])
        let report = try json(first)
        #expect(report["restored"] as? [String] == ["B"], "the restored replica is the second argument here: \(first.stdout)")
        #expect((report["history_resync"] as? String)?.hasPrefix("B was restored from an earlier state") == true, "\(first.stdout)")
        #expect(report["in_sync"] as? Bool == false)
        let again = try json(try tool(["sync", path("r2"), path("r1"), "--json"]))
        #expect(again["in_sync"] as? Bool == true)
        #expect(again["restored"] as? [String] == [])
        let r = try records(["r1", "r2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 22)
    }

    @Test("the restored replica has since written more changes than it lost, overwriting some: every write survives")
    func restoredSideWroteMoreThanItLost() throws {
        defer { tmp.remove() }
        try restoreAfterSyncingMore()
        // 30 writes after the restore: its seqs pass the 20 that B had merged, so comparing seqs alone
        // would see nothing wrong. k1…k5 are overwritten (the restored side's newer writes win).
        try set("r1", (1...5).map { "k\($0)" } + (1...25).map { "n\($0)" }) { "after-" + $0 }
        let first = try tool(["sync", path("r1"), path("r2"), "--json"])
        let report = try json(first)
        #expect(report["restored"] as? [String] == ["A"], "\(first.stdout)")
        let r = try records(["r1", "r2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 45)
        for i in 1...5 { #expect(r[1][SuiteKey(suite: "app", key: "k\(i)")].flatMap { try? $0.value() } == .string("after-k\(i)")) }
        for i in 6...20 { #expect(r[0][SuiteKey(suite: "app", key: "k\(i)")].flatMap { try? $0.value() } == .string("v\(i)")) }
        for i in 1...25 { #expect(r[1][SuiteKey(suite: "app", key: "n\(i)")].flatMap { try? $0.value() } == .string("after-n\(i)")) }
    }

    @Test("a third replica: what the restored replica lost comes back through whichever peer holds it; all three converge")
    func threeReplicas() throws {
        defer { tmp.remove() }
        try set("r1", ["a1"]) { _ in "1" }
        try tool(["sync", path("r1"), path("r2"), "--create"])
        try tool(["sync", path("r1"), path("r3"), "--create"])
        try ReplicaRestore.backup(path("r1"), to: path("r1.bak"))
        try set("r1", ["a2", "a3"]) { _ in "2" }
        try tool(["sync", path("r1"), path("r2")]) // a2, a3 reach B only
        try ReplicaRestore.restore(path("r1"), from: path("r1.bak"))
        try set("r1", ["a4"]) { _ in "4" }
        // C's cursor on A is from before the backup: true of the restored A, so no alarm, and a4 reaches C.
        let withC = try tool(["sync", path("r3"), path("r1")])
        #expect(!withC.stdout.contains("restored"), "\(withC.stdout)")
        // B has merged A past its backup: the rollback is found here, and a2, a3 come back to A.
        let withB = try tool(["sync", path("r2"), path("r1")])
        #expect(withB.lines.contains { $0.hasPrefix("B was restored from an earlier state") }, "\(withB.stdout)")
        try tool(["sync", path("r2"), path("r3")])
        try tool(["sync", path("r3"), path("r1")])
        let r = try records(["r1", "r2", "r3"])
        #expect(r[0] == r[1] && r[1] == r[2])
        #expect(Set(r[0].keys.map(\.key)) == ["a1", "a2", "a3", "a4"])
    }

    @Test("a cp -a copy running beside the original: every sync of a peer with the other one notices, and all converge")
    func copyBesideTheOriginal() throws {
        defer { tmp.remove() }
        try set("r1", ["base"]) { _ in "0" }
        try tool(["sync", path("r1"), path("r2"), "--create"])
        try ReplicaRestore.copy(path("r1"), to: path("r1-copy"))
        try set("r1", ["x"]) { _ in "from the original" }
        try set("r1-copy", ["y"]) { _ in "from the copy" }
        let original = try tool(["sync", path("r2"), path("r1")])
        #expect(!original.stdout.contains("restored"), "\(original.stdout)")
        let copy = try tool(["sync", path("r2"), path("r1-copy")])
        #expect(copy.lines.contains { $0.hasPrefix("B was restored from an earlier state") }, "the copy lacks the history B merged from A: \(copy.stdout)")
        let back = try tool(["sync", path("r2"), path("r1")])
        #expect(back.lines.contains { $0.hasPrefix("B was restored from an earlier state") }, "and the original lacks the copy's: \(back.stdout)")
        let r = try records(["r1", "r1-copy", "r2"])
        #expect(r[0] == r[2])
        #expect(Set(r[2].keys.map(\.key)) == ["base", "x", "y"])
        // The copy gets the original's x through B at its next sync.
        try tool(["sync", path("r2"), path("r1-copy")])
        #expect(try records(["r1-copy"])[0] == records(["r2"])[0])
    }
}
