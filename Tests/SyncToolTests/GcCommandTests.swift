import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

/// `sync-tool gc`: collects only tombstones past the retention that every known peer has merged, and
/// says what it removed, what it kept and why.
@Suite("sync-tool gc", .offThePool)
struct GcCommandTests {
    static let day: UInt64 = 86_400_000
    let tmp: TemporaryDirectory
    let now = UInt64(Date().timeIntervalSince1970 * 1000)
    init() throws { tmp = try TemporaryDirectory("concord-gc") }

    func json(_ invocation: Invocation) throws -> [String: Any] {
        #expect(invocation.status == 0, "\(invocation.err)")
        return try #require(try JSONSerialization.jsonObject(with: Data(invocation.out.joined().utf8)) as? [String: Any])
    }

    /// Deletes `old` 40 days ago and `recent` 5 days ago, on a clock set by hand, then brings the clock to now.
    func tombstones(in dir: String) throws -> (old: UInt64, recent: UInt64) {
        let clock = ManualClock(.milliseconds(now - 40 * Self.day))
        let store = try Store(
            path: dir,
            options: {
                var o = Store.Options()
                o.wallClock = clock.read
                return o
            }())
        let app = try store.suite("app")
        for key in ["a", "b", "c", "kept"] { try app.set(1, forKey: key) }
        try app.remove("a")
        try app.remove("b")
        let old = try #require(try app.record(forKey: "a")?.version.milliseconds)
        clock.set(.milliseconds(now - 5 * Self.day))
        try app.remove("c")
        let recent = try #require(try app.record(forKey: "c")?.version.milliseconds)
        clock.set(.milliseconds(now))
        return (old, recent)
    }

    @Test func removesWhatIsPastTheRetentionAndSaysWhenTheRestCanGo() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let (old, recent) = try tombstones(in: dir)

        let report = try json(Invocation(["gc", dir, "--json"]))
        #expect(report["retention_days"] as? Int == 30)
        #expect(report["tombstones"] as? Int == 3)
        #expect(report["collected"] as? Int == 2)
        #expect(report["kept_for_retention"] as? Int == 1)
        #expect(report["kept_for_peers"] as? Int == 0)
        let removed = try #require(report["removed"] as? [[String: Any]])
        #expect(removed.map { $0["key"] as? String } == ["a", "b"])
        #expect(removed.allSatisfy { $0["suite"] as? String == "app" })
        #expect(removed.first?["deleted"] as? String == GcCommand.date(old))
        #expect(report["next_collectable"] as? String == GcCommand.date(recent + 30 * Self.day))
        #expect((report["peers_holding_back"] as? [Any])?.isEmpty == true)

        // Collected: the records and their journal entries are gone; the rest stays.
        #expect(Invocation(["log", dir, "app"]).out.count == 2)
        #expect(Invocation(["list", dir, "app"]).out == ["app\tkept\tint\t1"])
        #expect(Invocation(["check", dir]).status == 0)

        let again = Invocation(["gc", dir, "--retention", "4.5"])
        #expect(again.status == 0)
        #expect(again.out == ["collected 1 of 1 tombstones (retention 4.5 days)", "  removed app/c (deleted \(GcCommand.date(recent)))"])
        #expect(Invocation(["gc", dir]).out == ["collected 0 of 0 tombstones (retention 30 days)"])
    }

    @Test func keepsWhatAPeerHasNotMergedAndNamesThePeer() throws {
        defer { tmp.remove() }
        let (dirA, dirB) = (tmp.path("a"), tmp.path("b"))
        let clock = ManualClock(.milliseconds(now - 40 * Self.day))
        var options = Store.Options()
        options.wallClock = clock.read
        let b: ReplicaID
        do {
            let storeA = try Store(path: dirA, options: options)
            let storeB = try Store(path: dirB, options: options)
            b = storeB.replicaID
            try storeA.suite("app").set(1, forKey: "k")
            try Synchronizer().sync(storeA, storeB)
            try storeA.suite("app").remove("k") // B has not merged this delete
            clock.set(.milliseconds(now))
        }
        let before = try json(Invocation(["gc", dirA, "--json"]))
        #expect(before["collected"] as? Int == 0 && before["kept_for_peers"] as? Int == 1)
        let holding = try #require(before["peers_holding_back"] as? [[String: Any]])
        #expect(holding.count == 1)
        #expect(holding.first?["peer"] as? String == b.description)
        #expect(holding.first?["tombstones"] as? Int == 1)
        #expect(holding.first?["last_synced"] as? String == GcCommand.date(now - 40 * Self.day), "when A last synced with B")
        let text = Invocation(["gc", dirA]).out
        #expect(text.contains("kept 1 that peers have not merged yet:"))
        #expect(text.contains { $0.hasPrefix("  peer \(b) has not merged 1 (last synced ") })

        #expect(Invocation(["sync", dirA, dirB]).status == 0)
        let after = try json(Invocation(["gc", dirA, "--json"]))
        #expect(after["collected"] as? Int == 1, "B merged the delete: \(after)")
        #expect(Invocation(["get", dirB, "app", "k"]).status == 1, "and the key stays deleted on B")
    }

    @Test func badRetentionChangesNothing() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        _ = try tombstones(in: dir)
        for bad in ["x", "-1", "36501", "nan", "inf", ""] {
            let refused = Invocation(["gc", dir, "--retention", bad])
            #expect(refused.status == 3, "--retention '\(bad)'")
            #expect(refused.err.first?.contains("--retention") == true)
        }
        #expect(Invocation(["gc", dir, "--retention"]).status == 2)
        #expect(Invocation(["gc", dir, "--dry"]).status == 2)
        #expect(Invocation(["gc", tmp.path("absent")]).status == 4)
        #expect(try json(Invocation(["info", dir, "--json"]))["tombstones"] as? Int == 3, "nothing was collected")
    }
}
