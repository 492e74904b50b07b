import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

#if canImport(Glibc)
    import Glibc
#endif

/// `sync-tool stat`: the figures someone sizing a deployment reads, checked against the store's
/// contents and against LMDB's own `mdb_stat`.
@Suite("sync-tool stat", .offThePool)
struct StatCommandTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("concord-stat") }

    func stat(_ arguments: [String]) throws -> [String: Any] {
        let outcome = try run("sync-tool", ["stat"] + arguments + ["--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
    }

    /// `mdb_stat OPTIONS DIR` (LMDB's own tool), as "Label: value" pairs of the section after `section`.
    func mdbStat(_ options: [String], _ dir: String, section: String) throws -> [String: Int] {
        let outcome = try run("/usr/bin/mdb_stat", options + [dir])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        var out: [String: Int] = [:]
        var inSection = false
        for line in outcome.lines {
            if !line.hasPrefix(" ") {
                inSection = line == section
                continue
            }
            guard inSection, let colon = line.firstIndex(of: ":") else { continue }
            out[line[..<colon].trimmingCharacters(in: .whitespaces)] = Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return out
    }

    @Test func sizesSuitesMapAndFreePagesAsLMDBCountsThem() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        do {
            let store = try Store(path: dir)
            let big = try store.suite("big")
            let small = try store.suite("small")
            let gone = try store.suite("gone")
            try big.batch { b in for i in 0..<300 { try b.set(String(repeating: "b", count: 500), forKey: "k\(i)") } }
            try small.batch { b in for i in 0..<10 { try b.set(i, forKey: "k\(i)") } }
            try gone.batch { b in for i in 0..<200 { try b.set(Data(repeating: 1, count: 3000), forKey: "k\(i)") } }
            try gone.reset() // 200 tombstones; the pages of their values go to the free list
            try small.remove("k0")
        }
        let s = try stat([dir])
        #expect(s["suites"] as? Int == 3)
        #expect(s["records"] as? Int == 510)
        #expect(s["tombstones"] as? Int == 201)
        #expect(s["journal_entries"] as? Int == 510, "live entries: one per record")
        #expect(s["superseded_journal_entries"] as? Int == 201, "the reset's and the remove's superseded entries, awaiting compaction")
        let log = try run("sync-tool", ["log", dir, "--json"])
        #expect(log.status == 0 && log.lines.count == 510, "log lists live entries alone: \(log.lines.count)")
        let suites = try #require(s["largest_suites"] as? [[String: Any]])
        #expect(suites.map { $0["name"] as? String } == ["big", "gone", "small"], "largest first")
        #expect(suites[0]["records"] as? Int == 300 && suites[0]["tombstones"] as? Int == 0)
        #expect(suites[1]["tombstones"] as? Int == 200 && suites[2]["tombstones"] as? Int == 1)
        #expect(suites[0]["bytes"] as? Int ?? 0 > 300 * 500)

        let map = try #require(s["map"] as? [String: Int])
        let env = try mdbStat(["-ef"], dir, section: "Environment Info")
        let free = try mdbStat(["-ef"], dir, section: "Freelist Status")
        #expect(map["map_bytes"] == env["Map size"])
        #expect(map["page_size"] == env["Page size"] && map["page_size"] == Int(sysconf(Int32(_SC_PAGESIZE))))
        #expect(map["map_pages"] == env["Max pages"])
        #expect(map["pages_used"] == env["Number of pages used"])
        #expect(map["free_pages"] == free["Free pages"], "free pages: ours \(map["free_pages"] ?? -1), mdb_stat \(free["Free pages"] ?? -1)")
        #expect(map["free_pages"] ?? 0 > 100, "the reset's freed value pages are on the free list")
        #expect(map["used_bytes"] == (map["pages_used"] ?? 0) * (map["page_size"] ?? 0))
        #expect(map["file_bytes"] ?? 0 >= map["used_bytes"] ?? .max)
        #expect(s["readers"].flatMap { ($0 as? [String: Any])?["max"] as? Int } == env["Max readers"])

        let records = try mdbStat(["-s", "records"], dir, section: "Status of records")
        #expect(s["records_depth"] as? Int == records["Tree depth"])
        let databases = try #require(s["databases"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: databases.map { ($0["name"] as? String ?? "", $0) })
        #expect(byName["records"]?["entries"] as? Int == records["Entries"])
        #expect(byName["freelist"]?["entries"] as? Int == free["Entries"])
        #expect(Set(byName.keys) == ["records", "journal", "meta", "peers", "conflicts", "marks", "freelist"])

        #expect(try stat([dir, "--top", "1"])["largest_suites"].flatMap { ($0 as? [Any])?.count } == 1)
        let text = Invocation(["stat", dir]).out
        #expect(text.contains { $0.hasPrefix("map: 64.0 MiB (16384 pages of \(map["page_size"]!) bytes)") }, "\(text)")
        #expect(text.contains("  big: 300 records (0 tombstones), \(StatCommand.bytes(suites[0]["bytes"] as! Int))"))
    }

    @Test func readerSlotsShowWhoReadsAndStaleOnesOfDeadProcesses() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        // The replica stays open here throughout: LMDB resets the reader table when the last process
        // that has it open closes it, so stale slots outlive their process only while others use it.
        let store = try Store(path: dir)
        try store.suite("app").set("v", forKey: "k")
        let reader = try ChildProcess("concord-test-helper", ["hold-read", dir])
        #expect(reader.waitForLine { $0 == "holding" }, "\(reader.errorOutput)")

        let during = try #require(try stat([dir])["readers"] as? [String: Any])
        let slots = try #require(during["slots"] as? [[String: Any]])
        let held = try #require(slots.first { $0["pid"] as? Int == Int(reader.pid) }, "the reader's slot: \(slots)")
        #expect(held["txn"] as? Int ?? 0 > 0 && held["alive"] as? Bool == true)
        #expect(during["reading"] as? Int ?? 0 >= 1 && during["stale"] as? Int == 0)
        #expect(during["in_use"] as? Int == slots.count)

        reader.kill()
        reader.wait()
        let after = try #require(try stat([dir])["readers"] as? [String: Any])
        #expect(after["stale_freed_at_open"] as? Int ?? 0 >= 1, "opening the replica frees the dead reader's slot: \(after)")
        #expect((after["slots"] as? [[String: Any]])?.contains { $0["pid"] as? Int == Int(reader.pid) } == false)
        let text = try run("sync-tool", ["stat", dir]).lines
        #expect(text.contains { $0.hasPrefix("readers: ") && $0.hasSuffix("0 stale freed when this command opened the replica") }, "\(text)")
        withExtendedLifetime(store) {}
    }

    @Test func badInputIsRefused() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        #expect(Invocation(["set", dir, "app", "k", "v"]).status == 0)
        #expect(Invocation(["stat", dir, "--top", "x"]).status == 3)
        #expect(Invocation(["stat", dir, "--top", "-1"]).status == 3)
        #expect(Invocation(["stat", dir, "--verbose"]).status == 2)
        #expect(Invocation(["stat", tmp.path("absent")]).status == 4)
        #expect(!FileManager.default.fileExists(atPath: tmp.path("absent")), "stat never creates a store")
    }
}
