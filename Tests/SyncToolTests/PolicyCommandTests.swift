import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

/// `sync-tool policy`, `schema` and `incr` on policies — the issue's two-device example through the
/// real `sync-tool` binary, one process per command, as a user would type it.
@Suite("sync-tool policies", .offThePool)
struct PolicyCommandTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("policy-cli") }

    /// Runs the built `sync-tool` and expects `status`; returns its stdout lines.
    @discardableResult
    func tool(_ arguments: String..., status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let result = try run("sync-tool", arguments)
        #expect(result.status == status, "sync-tool \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        if (1...4).contains(status) { #expect(result.stderr.split(separator: "\n").count == 1, "one line on stderr", sourceLocation: sourceLocation) }
        return result.lines
    }

    /// launchCount is 0 on a phone and a watch; each increments it once; after a sync both read 2.
    @Test func theTwoDeviceLaunchCountReadsTwoOnBoth() throws {
        defer { tmp.remove() }
        let (phone, watch) = (tmp.path("phone"), tmp.path("watch"))
        try tool("set", phone, "app", "launchCount", "0", "--type", "int")
        try tool("set", watch, "app", "launchCount", "0", "--type", "int")
        try tool("policy", phone, "app", "launchCount", "counter")
        try tool("sync", phone, watch) // the declaration travels with the data
        #expect(try tool("policy", watch, "app", "launchCount") == ["counter"])
        #expect(try tool("incr", phone, "app", "launchCount") == ["1"])
        #expect(try tool("incr", watch, "app", "launchCount") == ["1"])
        #expect(try tool("sync", phone, watch, "--dry-run", status: 10).last == "changes pending")
        let synced = try tool("sync", phone, watch)
        #expect(synced.contains("conflicts: 0"), "concurrent increments are not conflicts: \(synced)")
        #expect(try tool("get", phone, "app", "launchCount") == ["2"])
        #expect(try tool("get", watch, "app", "launchCount") == ["2"])
        #expect(try tool("sync", phone, watch, "--dry-run").last == "in sync")
        let json = try #require(try tool("get", watch, "app", "launchCount", "--json").first)
        #expect(json.contains(#""value":2"#) && json.contains(#""policy":"counter""#))
    }

    /// Without the counter policy, the same two increments keep one (lww, atomic only in each replica).
    @Test func withoutThePolicyIncrIsLastWriterWinsAcrossReplicas() throws {
        defer { tmp.remove() }
        let (phone, watch) = (tmp.path("phone"), tmp.path("watch"))
        try tool("set", phone, "app", "launchCount", "0", "--type", "int")
        try tool("sync", phone, tmp.path("watch"), status: 4) // no store there yet
        try tool("set", watch, "app", "other", "x")
        try tool("sync", phone, watch)
        try tool("incr", phone, "app", "launchCount")
        try tool("incr", watch, "app", "launchCount")
        #expect(try tool("sync", phone, watch).contains("conflicts: 1"))
        #expect(try tool("get", phone, "app", "launchCount") == ["1"])
        #expect(try tool("conflicts", phone, "app").last == "1 conflicts", "the lost increment is in the conflict log")
    }

    @Test func declarationsAreListedAndBadOnesRefused() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        try tool("policy", dir, "app", "score.", "max", "--prefix")
        try tool("policy", dir, "app", "tags", "set")
        try tool("policy", dir, "app", "launches", "counter")
        #expect(try tool("policy", dir, "app") == ["launches\tcounter", "tags\tset", "score.*\tmax"])
        #expect(try tool("policy", dir, "app", "score.level1") == ["max"])
        #expect(try tool("policy", dir, "app", "other") == ["lww"])
        let listed = try tool("policy", dir, "app", "--json")
        #expect(listed.count == 3 && listed[2].contains(#""prefix":"score.""#) && listed[2].contains(#""policy":"max""#))
        try tool("policy", dir, "app", "launches", "none")
        #expect(try tool("policy", dir, "app").count == 2, "none removes a declaration")

        try tool("policy", dir, "app", "x", "bogus", status: 3)
        try tool("policy", dir, "app", "x", "--prefix", status: 2)
        try tool("policy", dir, "_concord", "x", "counter", status: 3)
        try tool("set", dir, "_concord", "policy:app:x", "counter", status: 3)
        try tool("set", dir, "app", "tags", #"["a","b"]"#, "--type", "json")
        try tool("incr", dir, "app", "tags", status: 3)
        try tool("set", dir, "app", "tags", "a", status: 3)
        try tool("set", dir, "app", "score.a", "true", "--type", "bool", status: 3)
        #expect(try tool("get", dir, "app", "tags") == [#"["a","b"]"#], "refused writes changed nothing")
        #expect(try tool("check", dir).isEmpty == false)
    }

    @Test func schemaShowsVersionsAndPolicies() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let app = try run("concord-test-helper", ["schema-app", dir, "2", "set:appearance.theme=dark"])
        #expect(app.status == 0, "\(app.stderr)")
        try tool("policy", dir, "ui", "recent", "set")
        #expect(try tool("schema", dir) == ["app\tschema 2", "  launchCount\tcounter", "ui\tschema none", "  recent\tset"])
        #expect(try tool("schema", dir, "app", "--json") == [#"{"suite":"app","version":2,"policies":[{"key":"launchCount","policy":"counter"}]}"#])
        try tool("schema", dir, "no such", status: 3)
    }

    @Test func countersTravelThroughBundles() throws {
        defer { tmp.remove() }
        let (phone, watch) = (tmp.path("phone"), tmp.path("watch"))
        try tool("policy", phone, "app", "n", "counter")
        try tool("incr", phone, "app", "n", "5")
        try tool("set", watch, "app", "x", "y")
        try tool("export", phone, "--out", tmp.path("p.bundle"), "--all")
        try tool("import", watch, tmp.path("p.bundle"))
        try tool("incr", watch, "app", "n", "2")
        try tool("export", watch, "--out", tmp.path("w.bundle"), "--all")
        try tool("import", phone, tmp.path("w.bundle"))
        try tool("import", phone, tmp.path("w.bundle")) // twice is harmless
        #expect(try tool("get", phone, "app", "n") == ["7"])
        #expect(try tool("get", watch, "app", "n") == ["7"])
    }
}
