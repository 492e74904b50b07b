import Concord
import Foundation
import TestSupport
import Testing

/// Schema migrations with real processes at different schema versions (the test helper's
/// `schema-app` role: version 1 has no migrations; version 2 renames `theme` to `appearance.theme`,
/// converts `fontSize` from Int to Double, drops `legacy` and makes `launchCount` a counter).
@Suite(.timeLimit(.minutes(2)), .offThePool) struct MigrationTests {
    /// Runs the helper as a program at `version` on `dir`, with `steps`; returns its lines.
    static func app(_ dir: String, version: Int, _ steps: String...) throws -> [String] {
        let result = try run("concord-test-helper", ["schema-app", dir, String(version)] + steps)
        #expect(result.status == 0, "schema-app failed: \(result.stderr)")
        return result.lines
    }

    @Test func twoProgramsAtDifferentVersionsSyncBothWays() throws {
        let tmp = try TemporaryDirectory("migrate")
        defer { tmp.remove() }
        let old = tmp.path("old")
        let new = tmp.path("new")
        #expect(try Self.app(old, version: 1, "set:theme=dark", "int:fontSize=14", "set:legacy=x", "int:launchCount=3") == ["ok", "ok", "ok", "ok"])
        #expect(try Store(path: old).schemaVersion(of: "app") == 1)

        // The new program merges the old one's values and migrates them on the way in; both ways.
        let seen = try Self.app(new, version: 2, "sync:\(old)", "get:appearance.theme", "get:theme", "get:fontSize", "get:legacy", "incr:launchCount")
        #expect(seen == ["synced", "appearance.theme=string dark", "theme=nil", "fontSize=double 14.0", "legacy=nil", "4"])

        // The old replica now holds the new shape (its values were migrated by the new program and synced
        // back), the new version number, and refuses the old program's writes instead of writing old shapes.
        let oldStore = try Store(path: old)
        #expect(try oldStore.schemaVersion(of: "app") == 2)
        #expect(try oldStore.suite("app").get("appearance.theme", as: String.self) == "dark")
        #expect(try oldStore.suite("app").get("fontSize", as: Double.self) == 14)
        #expect(try oldStore.suite("app").value(forKey: "fontSize") == .double(14)) // converted, not just readable as a Double
        #expect(try oldStore.suite("app").policy(forKey: "launchCount") == .counter)
        #expect(try Self.app(old, version: 1, "set:theme=light", "get:theme") == ["error newerSchema", "theme=nil"])
        #expect(
            try Self.app(old, version: 2, "incr:launchCount", "get:launchCount") == ["4", "launchCount=int 4"],
            "the same replica opened by the new program: its increment of 3 (the base) + 1 here")
        let merged = try Self.app(new, version: 2, "sync:\(old)", "get:launchCount")
        #expect(merged == ["synced", "launchCount=int 5"], "the two programs' increments add up")
        try Replicas.expectSound(oldStore)
        try Replicas.expectSound(try Store(path: new))
    }

    /// An old program keeps writing `theme` after the new one migrated (it has not synced yet); when
    /// they sync, the newer value wins under its new name, in both replicas, and it is one record.
    @Test func aValueWrittenLaterByTheOldProgramArrivesUnderItsNewName() throws {
        let tmp = try TemporaryDirectory("migrate")
        defer { tmp.remove() }
        let old = tmp.path("old")
        let new = tmp.path("new")
        _ = try Self.app(old, version: 1, "set:theme=dark")
        #expect(try Self.app(new, version: 2, "sync:\(old)", "get:appearance.theme") == ["synced", "appearance.theme=string dark"])
        let oldLater = tmp.path("old-later")
        _ = try Self.app(oldLater, version: 1, "set:theme=light", "int:fontSize=9") // an old replica that never met the new one
        #expect(
            try Self.app(new, version: 2, "sync:\(oldLater)", "get:appearance.theme", "get:fontSize") == [
                "synced", "appearance.theme=string light", "fontSize=double 9.0"
            ])
        let a = try Store(path: new)
        let b = try Store(path: oldLater)
        #expect(try Replicas.bytes(a) == Replicas.bytes(b), "both replicas hold the same records")
        #expect(try a.suite("app").record(forKey: "appearance.theme") == b.suite("app").record(forKey: "appearance.theme"))
        #expect(try a.conflicts(suite: "app").allSatisfy { $0.key != "theme" || $0.winner.version > $0.loser.version })
    }

    /// A sync by a process that does not know the schema (sync-tool) brings an old-shape value in; the
    /// new program migrates it when it next opens the suite, and each migration ran once.
    @Test func oldValuesMergedByAnotherProcessAreMigratedWhenTheSuiteIsNextOpened() throws {
        let tmp = try TemporaryDirectory("migrate")
        defer { tmp.remove() }
        let old = tmp.path("old")
        let new = tmp.path("new")
        _ = try Self.app(new, version: 2, "set:appearance.theme=dark")
        _ = try Self.app(old, version: 1, "set:theme=blue", "int:fontSize=12")
        let sync = try run("sync-tool", ["sync", old, new])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try Store(path: new).suite("app").get("theme", as: String.self) == "blue", "sync-tool merged the old-shape value as it came")
        #expect(
            try Self.app(new, version: 2, "get:theme", "get:appearance.theme", "get:fontSize") == [
                "theme=nil", "appearance.theme=string blue", "fontSize=double 12.0"
            ])
        // Opening again changes nothing: every step only acts on values of the old shape.
        let store = try Store(path: new)
        let seq = try store.lastSeq()
        _ = try store.suite("app", schema: SchemaRoles.schema(2))
        #expect(try store.lastSeq() == seq)
    }

    @Test func aMigrationThatFailsWritesNothingAndSaysWhere() throws {
        let tmp = try TemporaryDirectory("migrate")
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("r"))
        try store.suite("app").set(14, forKey: "fontSize")
        try store.suite("app").set("x", forKey: "theme")
        struct Refused: Error {}
        let failing = Schema(
            version: 2,
            migrations: [
                Migration(
                    to: 2, .rename("theme", to: "t2"),
                    .convert("fontSize", from: Int.self, to: Double.self) { _ in throw Refused() })
            ])
        let before = try store.lastSeq()
        expectError(.migrationFailed) { _ = try store.suite("app", schema: failing) }
        #expect(try store.lastSeq() == before && (try store.schemaVersion(of: "app")) == nil, "nothing of the migration was written")
        #expect(try store.suite("app").get("theme", as: String.self) == "x")
        expectError(.invalidSchema) { _ = try store.suite("app", schema: Schema(version: 1, migrations: [Migration(to: 2)])) }
        expectError(.invalidSchema) {
            _ = try store.suite("app", schema: Schema(version: 2, migrations: [Migration(to: 2), Migration(to: 2)]))
        }
    }
}

/// The helper's schemas, for opening a replica in this process the way the helper does.
enum SchemaRoles {
    static func schema(_ version: Int) -> Schema {
        guard version >= 2 else { return Schema(version: version) }
        return Schema(
            version: 2,
            migrations: [
                Migration(
                    to: 2, .rename("theme", to: "appearance.theme"),
                    .convert("fontSize", from: Int.self, to: Double.self) { Double($0) },
                    .drop("legacy"), .policy(.counter, forKey: "launchCount"))
            ])
    }
}
