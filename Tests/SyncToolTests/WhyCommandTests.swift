import Concord
import Foundation
import TestSupport
import Testing

/// `sync-tool why`, `name` and `restore` through the real binary, one process per
/// command as a user types them: the theme that "went back to light" explained on both replicas,
/// its loser restored and synced, names carried by a directory sync and by a bundle.
@Suite("sync-tool why, name and restore", .offThePool)
struct WhyCommandTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("why-cli") }

    /// Runs `sync-tool` off the cooperative pool and expects `status`; returns its stdout lines.
    @discardableResult
    func tool(_ arguments: String..., status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let result = try await offThePool { try run("sync-tool", arguments) }
        #expect(result.status == status, "sync-tool \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        if (1...4).contains(status) { #expect(result.stderr.split(separator: "\n").count == 1, "one line on stderr", sourceLocation: sourceLocation) }
        return result.lines
    }

    func json(_ line: String?) throws -> [String: Any] {
        let text = try #require(line)
        return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func replicaID(_ dir: String) async throws -> String {
        let info = try await tool("info", dir, "--json")
        return try #require(try json(info.first)["replica"] as? String)
    }

    @Test func whyNamesTheWinnersWriterOnBothSidesAndRestoreBringsTheLoserBackAsANormalWrite() async throws {
        defer { tmp.remove() }
        let (laptop, desktop) = (tmp.path("laptop"), tmp.path("desktop"))
        try await tool("name", laptop, "Ada's laptop")
        try await tool("name", desktop, "Bob's desktop")
        let (laptopID, desktopID) = (try await replicaID(laptop), try await replicaID(desktop))
        try await tool("set", laptop, "prefs", "theme", "dark")
        try await tool("set", desktop, "prefs", "theme", "light") // later: it wins
        #expect(try await tool("sync", laptop, desktop).contains("conflicts: 1"))

        for (dir, arrival) in [(laptop, "sync"), (desktop, "other_process")] {
            let why = try json(try await tool("why", dir, "prefs", "theme", "--json").first)
            #expect(why["layer"] as? String == "stored" && why["value"] as? String == "light")
            let record = try #require(why["record"] as? [String: Any])
            #expect(record["writer"] as? String == desktopID && record["writer_name"] as? String == "Bob's desktop", "\(dir): \(why)")
            let arrived = try #require(why["arrival"] as? [String: Any])
            #expect(arrived["kind"] as? String == arrival)
            if arrival == "sync" { #expect(arrived["peer_name"] as? String == "Bob's desktop" && arrived["at"] is String) }
            let beaten = try #require(why["beaten"] as? [[String: Any]])
            #expect(beaten.count == 1, "\(dir): the loser is listed")
            #expect(beaten.first?["number"] as? Int == 1 && beaten.first?["value"] as? String == "dark")
            #expect(beaten.first?["writer"] as? String == laptopID && beaten.first?["writer_name"] as? String == "Ada's laptop")
        }
        let text = try await tool("why", laptop, "prefs", "theme")
        #expect(text.first == #"prefs/theme = string "light""#)
        #expect(text.contains { $0.contains("by \(desktopID) (Bob's desktop)") && $0.contains("written") })
        #expect(text.contains { $0.hasPrefix("  1. string \"dark\"") && $0.contains("(Ada's laptop)") })
        let log = try await tool("log", laptop, "prefs")
        #expect(log.contains { $0.hasSuffix("@\(desktopID) (Bob's desktop)") }, "the log's versions carry the writer's name: \(log)")
        let conflicts = try await tool("conflicts", laptop)
        #expect(conflicts.first?.contains("\(desktopID) (Bob's desktop)") == true && conflicts.first?.contains("\(laptopID) (Ada's laptop)") == true)

        let restored = try await tool("restore", laptop, "prefs", "theme", "--conflict", "1")
        #expect(restored.first?.hasPrefix(#"restored prefs/theme to string "dark""#) == true)
        #expect(try await tool("get", laptop, "prefs", "theme") == ["dark"])
        #expect(try await tool("sync", laptop, desktop).contains("conflicts: 0"), "the restore is a new write that wins, not a conflict")
        #expect(try await tool("get", desktop, "prefs", "theme") == ["dark"])
        let after = try json(try await tool("why", desktop, "prefs", "theme", "--json").first)
        let record = try #require(after["record"] as? [String: Any])
        #expect(record["writer_name"] as? String == "Ada's laptop")
        let arrived = try #require(after["arrival"] as? [String: Any])
        #expect(arrived["kind"] as? String == "sync" && arrived["peer"] as? String == laptopID)
    }

    @Test func beatenWritesAreNumberedNewestFirstAlikeInWhyConflictsAndRestore() async throws {
        defer { tmp.remove() }
        let (a, b) = (tmp.path("a"), tmp.path("b"))
        try await tool("set", a, "prefs", "theme", "dark")
        try await tool("set", b, "prefs", "theme", "light")
        try await tool("sync", a, b)
        try await tool("set", a, "prefs", "theme", "blue")
        try await tool("set", b, "prefs", "theme", "green")
        try await tool("sync", a, b)
        let why = try json(try await tool("why", a, "prefs", "theme", "--json").first)
        let beaten = try #require(why["beaten"] as? [[String: Any]])
        #expect(beaten.map { $0["value"] as? String } == ["blue", "dark"] && beaten.map { $0["number"] as? Int } == [1, 2])
        let lines = try await tool("conflicts", a, "prefs")
        #expect(lines.contains { $0.contains("lost string blue") && $0.hasSuffix("[restore --conflict 1]") }, "\(lines)")
        #expect(lines.contains { $0.contains("lost string dark") && $0.hasSuffix("[restore --conflict 2]") }, "\(lines)")
        try await tool("restore", a, "prefs", "theme", "--conflict", "2")
        #expect(try await tool("get", a, "prefs", "theme") == ["dark"])
        try await tool("restore", a, "prefs", "theme", "--conflict", "3", status: 1)
        #expect(try await tool("get", a, "prefs", "theme") == ["dark"])
    }

    @Test func aNameTravelsByDirectorySyncAndByABundle() async throws {
        defer { tmp.remove() }
        let (a, b, c) = (tmp.path("a"), tmp.path("b"), tmp.path("c"))
        try await tool("name", a, "Ada's laptop")
        try await tool("set", b, "prefs", "x", "1")
        try await tool("set", c, "prefs", "x", "1")
        try await tool("name", a, status: 0)
        try await tool("name", b, status: 1)
        try await tool("sync", a, b)
        #expect(try await tool("name", a) == ["Ada's laptop"])
        let aID = try await replicaID(a)
        try await tool("set", a, "prefs", "theme", "dark")
        try await tool("sync", a, b)
        let onB = try json(try await tool("why", b, "prefs", "theme", "--json").first)
        #expect((onB["record"] as? [String: Any])?["writer_name"] as? String == "Ada's laptop")

        let bundle = tmp.path("a.bundle")
        try await tool("export", a, "--out", bundle)
        try await tool("import", c, bundle)
        let onC = try json(try await tool("why", c, "prefs", "theme", "--json").first)
        #expect((onC["record"] as? [String: Any])?["writer_name"] as? String == "Ada's laptop", "the name came with the bundle")
        let viaBundle = try #require(onC["arrival"] as? [String: Any])
        #expect(viaBundle["kind"] as? String == "sync" && viaBundle["peer"] as? String == aID && viaBundle["peer_name"] as? String == "Ada's laptop")
        #expect(try await tool("list", c, "_concord").contains { $0.contains("replica-name:\(aID)") })

        try await tool("name", a, "Ada's new laptop") // renaming is a later write that wins everywhere
        try await tool("sync", a, b)
        let renamed = try json(try await tool("why", b, "prefs", "theme", "--json").first)
        #expect((renamed["record"] as? [String: Any])?["writer_name"] as? String == "Ada's new laptop")
    }

    @Test func aCountersPartsArePerReplica() async throws {
        defer { tmp.remove() }
        let (phone, watch) = (tmp.path("phone"), tmp.path("watch"))
        try await tool("name", phone, "phone")
        try await tool("name", watch, "watch")
        try await tool("policy", phone, "app", "launches", "counter")
        try await tool("sync", phone, watch)
        try await tool("incr", phone, "app", "launches", "2")
        try await tool("incr", watch, "app", "launches", "3")
        try await tool("sync", phone, watch)
        let why = try json(try await tool("why", watch, "app", "launches", "--json").first)
        #expect(why["value"] as? Int == 5 && why["policy"] as? String == "counter")
        let parts = try #require(why["parts"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: parts.compactMap { p in (p["replica_name"] as? String).map { ($0, p["value"] as? Int) } })
        #expect(byName == ["phone": 2, "watch": 3], "\(parts)")
        let text = try await tool("why", watch, "app", "launches")
        #expect(text.contains { $0.contains("part") && $0.contains("int 2 from") && $0.contains("(phone)") })
    }

    @Test func badInputIsRefusedWithItsExitCodeAndWritesNothing() async throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        try await tool("set", dir, "prefs", "theme", "dark")
        try await tool("name", dir, String(repeating: "n", count: 65), status: 3)
        try await tool("name", dir, "", status: 3)
        try await tool("name", dir, "tab\there", status: 3)
        try await tool("name", dir, String(repeating: "é", count: 32)) // 64 bytes is the limit, inclusive
        let seq = try json(try await tool("info", dir, "--json").first)["last_seq"] as? Int
        try await tool("restore", dir, "prefs", "theme", "--conflict", "1", status: 1) // no beaten writes
        try await tool("restore", dir, "prefs", "theme", "--conflict", "0", status: 3)
        try await tool("restore", dir, "prefs", "theme", "--conflict", "first", status: 3)
        try await tool("restore", dir, "prefs", "theme", status: 2)
        #expect(try json(try await tool("info", dir, "--json").first)["last_seq"] as? Int == seq, "nothing was written")
        #expect(try await tool("get", dir, "prefs", "theme") == ["dark"])
        let unknown = try await tool("why", dir, "nosuchsuite", "nokey")
        #expect(unknown.first == "nosuchsuite/nokey: nothing stored" && unknown.contains("  layer    nothing"))
        let unknownJSON = try json(try await tool("why", dir, "nosuchsuite", "nokey", "--json").first)
        #expect(unknownJSON["layer"] as? String == "nothing" && unknownJSON["record"] is NSNull)
        try await tool("why", dir, "bad/suite", "k", status: 3)
        try await tool("why", dir, "prefs", status: 2)
        try await tool("delete", dir, "prefs", "theme")
        let deleted = try await tool("why", dir, "prefs", "theme")
        #expect(deleted.first == "prefs/theme: nothing stored (deleted)" && deleted.contains { $0.hasPrefix("  deleted") })
    }
}
