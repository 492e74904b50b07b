import Concord
import Foundation
import TestSupport
import Testing

/// Bundles and directory syncs meet records the gate refuses. A bundle holding
/// one is refused whole by `sync-tool import` (exit 3, nothing imported); a replica that already holds
/// such records (stored by a release before the gate) leaves them out of `sync-tool sync` and
/// `export`, says so, and syncs everything else.
@Suite("Bundles and directories holding records the gate refuses", .offThePool)
struct HostileBundleTests {
    let tmp: TemporaryDirectory
    let target: String
    static let writer = ReplicaID(bytes: [UInt8](repeating: 0x3C, count: 16))!
    static let now = HybridClock.wallMilliseconds() << 16

    init() throws {
        tmp = try TemporaryDirectory("gate-bundles")
        target = tmp.path("target")
        try Store(path: target).suite("prefs").set("before", forKey: "theme")
    }

    /// A sealed bundle of `entries` from `writer` (with one sound entry first).
    func bundle(_ name: String, _ entries: [RemoteEntry]) throws -> String {
        let sound = RemoteEntry(
            seq: 1, suite: "prefs", key: "sound", record: try Record(version: Version(hlc: Self.now, replica: Self.writer), value: .string("fine")))
        let numbered = entries.enumerated().map {
            RemoteEntry(seq: UInt64($0.offset + 2), suite: $0.element.suite, key: $0.element.key, record: $0.element.record)
        }
        let batch = RemoteBatch(
            source: Self.writer, selection: .all, fromSeq: 0, toSeq: UInt64(entries.count + 1), entries: [sound] + numbered, knowledge: .none)
        let path = tmp.path(name + ".bundle")
        try Data(SyncBundle(batch: batch, createdMilliseconds: 1).encoded()).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func entry(_ suite: String, _ key: String, _ record: Record) -> RemoteEntry { RemoteEntry(seq: 0, suite: suite, key: key, record: record) }
    static func record(_ value: Value, hlc: UInt64 = now) throws -> Record { try Record(version: Version(hlc: hlc, replica: writer), value: value) }

    func expectUnchangedAndImporting(_ before: [SuiteKey: Record], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try contents(try Store(path: target)) == before, "nothing was imported", sourceLocation: sourceLocation)
        let check = try run("sync-tool", ["check", target])
        #expect(check.status == 0, "sync-tool check: \(check.stderr)", sourceLocation: sourceLocation)
        let good = try bundle("good-\(UUID().uuidString.prefix(6))", [])
        let later = try run("sync-tool", ["import", target, good])
        #expect(later.status == 0, "a later import works: \(later.stderr)", sourceLocation: sourceLocation)
        #expect(try Store(path: target).suite("prefs").get("sound", as: String.self) == "fine", sourceLocation: sourceLocation)
    }

    @Test("a bundle holding a record with hlc 0xFFFF_FFFF_FFFF_FFFF, a key with U+0000, or a garbage value tag: refused whole (exit 3), named")
    func recordsTheGateRefuses() throws {
        let before = try contents(try Store(path: target))
        let cases: [(String, RemoteEntry, String)] = [
            ("hlc-max", Self.entry("prefs", "theme", try Self.record(.string("pinned"), hlc: .max)), "past the greatest any clock produces"),
            ("nul", Self.entry("prefs", "a\u{0}b", try Self.record(.int(1))), "U+0000"),
            ("garbage-tag", Self.entry("prefs", "g", Record(version: Version(hlc: Self.now, replica: Self.writer), valueBytes: [200, 0])), "damaged"),
            ("undecodable", Self.entry("prefs", "u", Record(version: Version(hlc: Self.now, replica: Self.writer), valueBytes: [1, 0xff])), "does not decode")
        ]
        for (name, entry, words) in cases {
            let result = try run("sync-tool", ["import", target, try bundle(name, [entry])])
            #expect(result.status == 3, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(words) && result.stderr.contains("nothing was imported"), "\(name): \(result.stderr)")
            #expect(!result.stderr.contains("newer"), "\(name): garbage is damage, not a newer Concord's: \(result.stderr)")
        }
        try expectUnchangedAndImporting(before)
    }

    @Test("a bundle with suite '../x', an empty suite, one of 129 or 255 bytes, or a 20 MiB value: refused whole (exit 3)")
    func namesAndSizes() throws {
        let before = try contents(try Store(path: target))
        var cases: [(String, RemoteEntry)] = []
        for suite in ["../x", "", String(repeating: "s", count: 129), String(repeating: "s", count: 255)] {
            cases.append(("suite-\(suite.utf8.count)", Self.entry(suite, "k", try Self.record(.int(1)))))
        }
        cases.append(("huge", Self.entry("prefs", "huge", try Self.record(.data(Data(repeating: 1, count: 20 << 20))))))
        for (name, entry) in cases {
            let result = try run("sync-tool", ["import", target, try bundle(name, [entry])])
            #expect(result.status == 3, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(name == "huge" ? "over the limit" : "invalid suite name"), "\(name): \(result.stderr)")
        }
        try expectUnchangedAndImporting(before)
    }

    @Test(
        "a replica holding records from before the gate (hlc max, U+0000, a value over the limit, suite '../x'): sync and export leave them out and say so; the rest syncs"
    )
    func aReplicaHoldingRecordsFromBeforeTheGate() throws {
        let old = tmp.path("old")
        let store = try Store(path: old)
        try store.write { w in
            try w.storeUncheckedForTesting(try Self.record(.string("pinned"), hlc: .max), suite: "prefs", key: "theme", from: Self.writer)
            try w.storeUncheckedForTesting(try Self.record(.int(1)), suite: "prefs", key: "a\u{0}b", from: Self.writer)
            try w.storeUncheckedForTesting(try Self.record(.data(Data(repeating: 1, count: 5 << 20))), suite: "prefs", key: "huge", from: Self.writer)
            try w.storeUncheckedForTesting(try Self.record(.int(1)), suite: "../x", key: "k", from: Self.writer)
        }
        try store.suite("prefs").set("sound", forKey: "plain")
        let before = try contents(try Store(path: target))
        let sync = try run("sync-tool", ["sync", old, target])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("A: 4 changes left out:"), "\(sync.stdout)")
        let received = try contents(try Store(path: target))
        var expected = before
        expected[SuiteKey(suite: "prefs", key: "plain")] = try store.suite("prefs").record(forKey: "plain")
        #expect(received == expected, "only the sound change arrived; the target's theme is its own")
        #expect(try Store(path: target).suite("prefs").get("theme", as: String.self) == "before")
        let check = try run("sync-tool", ["check", target])
        #expect(check.status == 0, "\(check.stderr)")
        // Told once: the next sync has nothing to leave out, and later changes still go.
        try store.suite("prefs").set("later", forKey: "plain")
        let again = try run("sync-tool", ["sync", old, target])
        #expect(again.status == 0 && !again.stdout.contains("left out"), "\(again.stdout)")
        #expect(try Store(path: target).suite("prefs").get("plain", as: String.self) == "later")
        let export = try run("sync-tool", ["export", old, "--out", tmp.path("old.bundle")])
        #expect(export.status == 0 && export.stdout.contains("4 changes left out"), "\(export.stdout) \(export.stderr)")
        let imported = try run("sync-tool", ["import", tmp.path("fresh"), tmp.path("old.bundle")])
        #expect(imported.status == 0, "the exported bundle imports: \(imported.stderr)")
    }
}
