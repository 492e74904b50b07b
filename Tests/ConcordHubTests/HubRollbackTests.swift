import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// A hub restored from a `pg_dump` taken before its last pushes hands out seqs again that devices'
/// cursors are past; a device restored from a backup hands its seqs out again to the hub. The first
/// sync that meets either must notice, and everything that still exists anywhere must come back
/// (the architecture document, "Trust and time"). Every step runs the built `sync-tool`.
@Suite("Rollback: a hub restored from a dump, a device restored from a backup", .serialized)
struct HubRollbackTests {
    let fx: HubFixture
    let url: String

    init() throws {
        fx = try HubFixture()
        url = try fx.account("alice").url
    }

    @discardableResult
    func sync(_ device: String, _ extra: [String] = []) throws -> ProcessResult {
        let result = try run("sync-tool", ["sync", fx.path(device), url] + extra)
        #expect(result.status == 0, "sync \(device): \(result.stderr)")
        return result
    }

    func set(_ device: String, _ key: String, _ value: String) throws {
        let result = try run("sync-tool", ["set", fx.path(device), "app", key, value])
        #expect(result.status == 0, "\(result.stderr)")
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        let line = try #require(result.lines.last, "no output; stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func records(_ devices: [String]) throws -> [[SuiteKey: Record]] {
        try devices.map { try contents(try fx.store($0)) }
    }

    /// Three devices; ten pushes; the dump; ten more pushes that everyone pulls; the dump restored.
    func restoreTheHubAfterMorePushes() throws {
        for i in 1...5 {
            try set("d1", "a\(i)", "1")
            try sync("d1")
            try set("d2", "b\(i)", "2")
            try sync("d2")
        }
        for device in ["d1", "d2", "d3"] { try sync(device) }
        try fx.server.dump(database: fx.database, to: fx.path("hub.dump"))
        for i in 1...5 {
            try set("d1", "c\(i)", "1")
            try sync("d1")
            try set("d2", "e\(i)", "2")
            try sync("d2")
        }
        for device in ["d1", "d2", "d3"] { try sync(device) }
        try fx.server.restore(database: fx.database, from: fx.path("hub.dump"))
    }

    @Test("the issue's three devices: device 3 writes Z after the restore; device 2 receives it; what the hub lost comes back from the devices")
    func writerSyncsFirst() throws {
        try restoreTheHubAfterMorePushes()
        try set("d3", "Z", "3")
        let first = try sync("d3", ["--json"])
        let report = try json(first)
        #expect(report["restored"] as? [String] == ["B"], "\(first.stdout)")
        #expect((report["resync"] as? String)?.hasPrefix("B (the hub) was restored from an earlier state") == true, "\(first.stdout)")
        let second = try sync("d2")
        #expect(second.lines.contains { $0.hasPrefix("B (the hub) was restored from an earlier state") }, "\(second.stdout)")
        try sync("d1")
        try sync("d3")
        let r = try records(["d1", "d2", "d3"])
        #expect(r[0] == r[1] && r[1] == r[2])
        #expect(r[1][SuiteKey(suite: "app", key: "Z")].flatMap { try? $0.value() } == .string("3"), "device 2 received Z")
        #expect(r[0].count == 21)
        // The hub holds everything again: a new device gets all of it.
        try sync("d4")
        #expect(try records(["d4"])[0] == r[0])
        let quiet = try sync("d2")
        #expect(!quiet.stdout.contains("restored") && quiet.lines.last == "in sync", "\(quiet.stdout)")
    }

    @Test("a device that wrote nothing syncs first after the restore, then device 3 writes Z: device 2 still receives it")
    func readerSyncsFirst() throws {
        try restoreTheHubAfterMorePushes()
        let first = try sync("d2")
        #expect(first.lines.contains { $0.hasPrefix("B (the hub) was restored from an earlier state") }, "\(first.stdout)")
        try set("d3", "Z", "3")
        try sync("d3")
        let second = try sync("d2")
        #expect(!second.stdout.contains("restored"), "device 2 resent everything already: \(second.stdout)")
        try sync("d1")
        try sync("d3")
        let r = try records(["d1", "d2", "d3"])
        #expect(r[0] == r[1] && r[1] == r[2])
        #expect(r[1][SuiteKey(suite: "app", key: "Z")] != nil)
        #expect(r[0].count == 21)
    }

    @Test("a device restored from its backup, having written more than it lost: the hub's cursor on it proves it; its lost writes come back")
    func deviceRestoredFromABackup() throws {
        for i in 1...3 { try set("d1", "a\(i)", "1") }
        try sync("d1")
        try ReplicaRestore.backup(fx.path("d1"), to: fx.path("d1.bak"))
        for i in 4...6 { try set("d1", "a\(i)", "1") }
        try sync("d1")
        try sync("d2")
        try ReplicaRestore.restore(fx.path("d1"), from: fx.path("d1.bak"))
        for i in 1...8 { try set("d1", "n\(i)", "restored") }
        let first = try sync("d1", ["--json"])
        let report = try json(first)
        #expect(report["restored"] as? [String] == ["A"], "\(first.stdout)")
        try sync("d2")
        let r = try records(["d1", "d2"])
        #expect(r[0] == r[1])
        #expect(r[0].count == 14)
    }
}
