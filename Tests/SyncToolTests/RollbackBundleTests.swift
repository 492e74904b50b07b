import Concord
import Foundation
import TestSupport
import Testing

/// Bundles are one-way, so a rollback is found by whichever import first meets the evidence: the
/// importer's cursor bound to a mark the bundle's source no longer lists (or says it lacks), or the
/// source's cursor on the importer bound to a mark the importer lacks. Until then nothing is skipped
/// (an import that cannot prove the cursor merges every entry), and a round trip of bundles brings
/// back everything. Every step runs the built `sync-tool`.
@Suite("Rollback: bundles exported by, or imported into, a replica restored from a backup", .offThePool)
struct RollbackBundleTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("concord-rollback-bundles") }

    func path(_ name: String) -> String { tmp.path(name) }

    @discardableResult
    func tool(_ arguments: [String]) throws -> ProcessResult {
        let result = try run("sync-tool", arguments)
        #expect(result.status == 0, "sync-tool \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    func set(_ dir: String, _ keys: [String]) throws {
        for key in keys { try tool(["set", path(dir), "app", key, "v" + key]) }
    }

    /// The replica id of `dir`, as `sync-tool info` prints it (no store is opened in this process mid-test).
    func id(_ dir: String) throws -> String {
        try #require(try json(try tool(["info", path(dir), "--json"]))["replica"] as? String)
    }

    /// Exports `from` for `to` (by replica id, as this replica's cursors tell) and imports it into `to`.
    @discardableResult
    func send(_ from: String, _ to: String) throws -> ProcessResult {
        let file = path("\(from)-to-\(to)-\(UUID().uuidString.prefix(8)).bundle")
        try tool(["export", path(from), "--out", file, "--since-peer", try id(to)])
        return try tool(["import", path(to), file, "--json"])
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data((result.lines.last ?? "").utf8)) as? [String: Any], "\(result.stdout)")
    }

    func records(_ names: [String]) throws -> [[SuiteKey: Record]] { try names.map { try contents(try Store(path: path($0))) } }

    /// r1 and r2 exchange bundles both ways; r1 is backed up; r1's k11…k20 reach r2; r1 is restored.
    func restoreAfterSendingMore() throws {
        try set("r1", (1...10).map { "k\($0)" })
        try set("r2", ["seed"])
        try send("r1", "r2")
        try send("r2", "r1")
        try ReplicaRestore.backup(path("r1"), to: path("r1.bak"))
        try set("r1", (11...20).map { "k\($0)" })
        try send("r1", "r2")
        try send("r2", "r1")
        try ReplicaRestore.restore(path("r1"), from: path("r1.bak"))
    }

    /// Bundles both ways until neither import finds anything to change (at most `rounds` round trips).
    func roundTrips(_ rounds: Int = 4) throws -> [String] {
        var said: [String] = []
        for _ in 0..<rounds {
            for (from, to) in [("r1", "r2"), ("r2", "r1")] {
                let result = try json(try send(from, to))
                if let line = result["history_resync"] as? String { said.append("\(to): \(line)") }
            }
        }
        return said
    }

    @Test("the restored replica exports first, having written more than it lost: its peer finds the source restored at once; a round trip restores everything")
    func restoredSourceWroteMore() throws {
        defer { tmp.remove() }
        try restoreAfterSendingMore()
        try set("r1", (1...25).map { "new\($0)" })
        let first = try json(try send("r1", "r2"))
        #expect(first["restored"] as? [String] == ["source"], "\(first)")
        #expect((first["history_resync"] as? String)?.hasPrefix("the bundle's source was restored from an earlier state") == true, "\(first)")
        _ = try roundTrips()
        let r = try records(["r1", "r2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 46, "seed, k1…k20, new1…new25")
    }

    @Test(
        "the restored replica exports first, having written less than it lost: the import merges everything without trusting the cursor; the round trip finds it and restores everything"
    )
    func restoredSourceWroteLess() throws {
        defer { tmp.remove() }
        try restoreAfterSendingMore()
        try set("r1", ["new"])
        let first = try json(try send("r1", "r2"))
        #expect(first["already_merged"] as? Int == 0, "nothing skipped on a cursor the bundle cannot prove: \(first)")
        let r2 = try records(["r2"])[0]
        #expect(r2[SuiteKey(suite: "app", key: "new")] != nil, "the restored replica's new write arrived")
        let said = try roundTrips()
        #expect(said.contains { $0.contains("was restored from an earlier state") }, "\(said)")
        let r = try records(["r1", "r2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 22)
    }

    @Test("the peer exports first: the restored importer finds itself restored; what it lost comes back by the round trip")
    func peerExportsFirst() throws {
        defer { tmp.remove() }
        try restoreAfterSendingMore()
        try set("r1", ["new"])
        try set("r2", ["fromPeer"])
        let first = try json(try send("r2", "r1"))
        #expect(first["restored"] as? [String] == ["replica"], "\(first)")
        #expect((first["history_resync"] as? String)?.hasPrefix("this replica was restored from an earlier state") == true, "\(first)")
        _ = try roundTrips()
        let r = try records(["r1", "r2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 23)
    }

    @Test("bundles of this format (7, sealed records) and of every older one import, and importing one twice changes nothing")
    func everyFormatImports() throws {
        defer { tmp.remove() }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        for format in 1...7 {
            let dir = path("into-\(format)")
            let file = url.path + "/fixtures/bundles/" + (format == 7 ? "valid.bundle" : "valid-format\(format).bundle")
            let first = try json(try tool(["import", dir, file, "--json"]))
            #expect(first["records_changed"] as? Int == 3, "format \(format): \(first)")
            let second = try json(try tool(["import", dir, file, "--json"]))
            #expect(second["records_changed"] as? Int == 0, "format \(format): \(second)")
            #expect(try tool(["check", dir]).status == 0)
        }
    }
}
