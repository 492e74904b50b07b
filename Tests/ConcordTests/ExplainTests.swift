import Concord
import ConcordTesting
import Foundation
import TestSupport
import Testing

/// `Suite.explain(_:)`, `SettingsScope.explain(_:)`, `Suite.restore(_:conflict:)` and replica names
/// through the library (the CLI's own tests spawn `sync-tool`): every layer a read can answer from is
/// named, and a restored loser is an ordinary write that syncs.
@Suite("Explaining a value")
struct ExplainTests {
    @Test func eachLayerIsNamed() throws {
        let store = try Store.temporary()
        let app = try store.suite("app")
        try app.register(defaults: ["theme": "light"])
        #expect(try app.explain("theme").layer == .registeredDefault)
        #expect(try app.explain("theme").value == .string("light"))
        #expect(try app.explain("theme").record == nil)
        #expect(try app.explain("nothing").layer == .nothing && app.explain("nothing").value == nil)

        try app.set("dark", forKey: "theme")
        let stored = try app.explain("theme")
        #expect(stored.layer == .stored && stored.value == .string("dark"))
        #expect(stored.writer?.id == store.replicaID && stored.arrival == .thisProcess)
        #expect(stored.origin == .thisProcess && stored.mergedAt == nil && stored.writerName == nil && stored.conflicts.isEmpty)
        #expect(stored.written.map { abs($0.timeIntervalSinceNow) < 3600 } == true, "the version's time is now-ish")

        try app.remove("theme") // "my theme went back to light": a deletion, so the default answers
        let deleted = try app.explain("theme")
        #expect(deleted.layer == .registeredDefault && deleted.value == .string("light"))
        #expect(deleted.record?.isTombstone == true && deleted.writer?.id == store.replicaID)

        try app.set("dark", forKey: "theme")
        let root = SettingsScope(suites: [app])
        #expect(try root.explain(ThemeKey.self)?.layer == .stored)
        let preview = root.child { $0.theme = .light }
        let fromScope = try #require(try preview.explain(ThemeKey.self))
        #expect(fromScope.layer == .scopeOverride(depth: 0) && fromScope.value == .string("light"))
        #expect(fromScope.record.flatMap { try? $0.value() } == .string("dark"), "what is stored beneath the override is still shown")
        #expect(try preview.child { _ in }.explain(ThemeKey.self)?.layer == .scopeOverride(depth: 1))
        root.override("theme", text: "system")
        #expect(try root.explain(ThemeKey.self)?.layer == .argument)
        root.removeAllOverrides()
        try app.remove("theme")
        let empty = SettingsScope(suites: [try store.suite("other")])
        #expect(try empty.explain(ThemeKey.self)?.layer == .settingDefault)
    }

    @Test func aMergedRecordSaysWhenThisReplicaMergedIt() async throws {
        let (laptopClock, desktopClock) = (ManualClock(.seconds(1_800_000_000)), ManualClock(.seconds(1_800_000_000)))
        let (laptop, desktop) = (try Store.temporary(clock: laptopClock), try Store.temporary(clock: desktopClock))
        try await desktop.suite("prefs").set("dark", forKey: "theme")
        laptopClock.advance(.milliseconds(90_000)) // the sync happens a minute and a half after the write
        try await Synchronizer().sync(laptop, desktop)
        let why = try laptop.suite("prefs").explain("theme")
        #expect(why.written == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(why.arrival == .sync(from: NamedReplica(id: desktop.replicaID, name: nil), at: Date(timeIntervalSince1970: 1_800_000_090)))
        #expect("\(why.arrival!)" == "merged by a sync from \(desktop.replicaID) at 2027-01-15T08:01:30.000Z")
        #expect(why.origin == .sync(peer: desktop.replicaID) && why.mergedAt == Date(timeIntervalSince1970: 1_800_000_090))

        laptopClock.advance(.milliseconds(60_000)) // a later sync that brings nothing new leaves the arrival as it was
        desktopClock.advance(.milliseconds(150_000))
        try await desktop.suite("prefs").set(1, forKey: "other")
        try await Synchronizer().sync(laptop, desktop)
        #expect(try laptop.suite("prefs").explain("theme").arrival == why.arrival)
    }

    @Test func aBeatenWriteIsListedAndRestoredAsANewWriteThatSyncs() async throws {
        var later = Store.Options()
        later.wallClock = { .seconds(Date().timeIntervalSince1970 + 1) } // b's write is the later one
        let (a, b) = (try Store.temporary(), try Store.temporary(options: later))
        try await a.setName("Ada's laptop")
        try await b.setName("Bob's desktop")
        try await a.suite("prefs").set("dark", forKey: "theme")
        try await b.suite("prefs").set("light", forKey: "theme")
        let first = try await Synchronizer().sync(a, b)
        #expect(first.conflicts.count == 1)
        for store in [a, b] {
            let why = try store.suite("prefs").explain("theme")
            #expect(why.value == .string("light") && why.writer == NamedReplica(id: b.replicaID, name: "Bob's desktop"))
            #expect(why.beaten.map(\.number) == [1] && why.beaten.first?.value == .string("dark"))
            #expect(why.beaten.first?.writer.name == "Ada's laptop")
            #expect(why.writerName == "Bob's desktop" && why.conflicts.count == 1, "the public answer: the writer's name, the log's entry")
            #expect(try why.conflicts.first?.loser.value() == .string("dark") && why.conflicts.first?.loser.version.replica == a.replicaID)
        }
        let explained = try a.suite("prefs").explain("theme")
        if case .sync(let peer, let at)? = explained.arrival {
            #expect(peer.id == b.replicaID && peer.name == "Bob's desktop")
            // b's clock runs 1 s ahead, so a's clock at the merge is b's write's, at or after it.
            #expect(at.map { $0 >= explained.written! } == true, "merged at \(String(describing: at)), written \(explained.written!)")
        } else {
            Issue.record("the winner reached the laptop by a sync")
        }

        let seq = try a.lastSeq()
        #expect(throws: ConcordError.noSuchConflict(suite: "prefs", key: "theme", number: 2, count: 1)) {
            try a.suite("prefs").restore("theme", conflict: 2)
        }
        #expect(try a.lastSeq() == seq, "nothing written")
        let version = try #require(try await a.suite("prefs").restore("theme", conflict: 1))
        #expect(version.replica == a.replicaID)
        let second = try await Synchronizer().sync(a, b)
        #expect(second.conflicts.isEmpty)
        #expect(try b.suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try b.suite("prefs").explain("theme").writer?.name == "Ada's laptop")
    }

    @Test func aSetsPartsArePerReplica() async throws {
        let (a, b) = (try Store.temporary(), try Store.temporary())
        try await a.setName("a")
        try a.suite("app").declare(.set, forKey: "tags")
        _ = try await Synchronizer().sync(a, b)
        try await a.suite("app").update("tags", as: [String].self) { $0 = ($0 ?? []) + ["red"] }
        try await b.suite("app").update("tags", as: [String].self) { $0 = ($0 ?? []) + ["blue"] }
        _ = try await Synchronizer().sync(a, b)
        let why = try b.suite("app").explain("tags")
        #expect(why.policy == .set && why.value == .array([.string("blue"), .string("red")]))
        let parts = Dictionary(uniqueKeysWithValues: why.parts.filter { !$0.isBase }.map { ($0.replica.id, $0.value) })
        #expect(parts == [a.replicaID: .array([.string("red")]), b.replicaID: .array([.string("blue")])])
        #expect(why.parts.first { $0.replica.id == a.replicaID }?.replica.name == "a")
        #expect(why.contributions == [a.replicaID: .array([.string("red")]), b.replicaID: .array([.string("blue")])])
    }

    @Test func aBadReplicaNameIsRefused() throws {
        let store = try Store.temporary()
        for bad in ["", String(repeating: "x", count: 65), "line\nbreak"] {
            expectError(.invalidReplicaName) { try store.setName(bad) }
        }
        #expect(try store.name(of: store.replicaID) == nil)
        try store.setName("Ada's laptop")
        #expect(try store.replicaNames() == [store.replicaID: "Ada's laptop"])
        try store.setName(nil)
        #expect(try store.name(of: store.replicaID) == nil)
    }
}
