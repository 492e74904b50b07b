import Foundation
import Testing
import TestSupport
import Concord

/// The README's tour of the store and of sync, as code that must compile and behave as it says.
@Suite struct ReadmeExamplesTests {
    enum Theme: String, StorableValue { case light, dark }
    struct Window: Codable, Equatable, StorableValue { var width: Int; var height: Int }

    @Test func theLibraryTour() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("settings"))
        let suite = try store.suite("group.example.app")

        try suite.set("Ada", forKey: "username")
        try suite.set(3, forKey: "launchCount")
        try suite.set(["a", "b"], forKey: "recent")
        #expect(try suite.get("username", as: String.self) == "Ada")
        #expect(throws: StoreError.typeMismatch(suite: "group.example.app", key: "username", stored: "string", requested: "Int")) {
            try suite.get("username", as: Int.self)
        }

        try suite.register(defaults: ["theme": "light"])
        try suite.set("dark", forKey: "theme")
        try suite.remove("theme")
        #expect(try suite.get("theme", as: String.self) == "light")

        try suite.batch { b in
            try b.set(1, forKey: "a")
            try b.remove("b")
        }
        #expect(try suite.increment("launchCount") == 4)
        try suite.update("recent", as: [String].self) { $0 = ($0 ?? []) + ["c"] }
        #expect(try suite.get("recent", as: [String].self) == ["a", "b", "c"])

        try suite.set(Theme.dark, forKey: "theme")
        #expect(try suite.get("theme", as: Theme.self) == .dark)
        try suite.set(Window(width: 800, height: 600), forKey: "window")
        #expect(try suite.get("window", as: Window.self) == Window(width: 800, height: 600))
        #expect(try suite.value(forKey: "window")?.kind == .dictionary)

        try suite.reset()
        #expect(try suite.keys().isEmpty)
        // One journal entry per key ever written (username, launchCount, recent, theme, a, window), now tombstones.
        #expect(try store.journalEntries(after: 0).count == 6)
        #expect(try store.journalEntries(after: 0).allSatisfy { $0.record.isTombstone })
    }

    @Test func theSyncTour() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone")), watch = try Store(path: tmp.path("watch"))
        try phone.suite("prefs").set("light", forKey: "theme")
        try watch.suite("prefs").set("dark", forKey: "theme")
        let report = try Synchronizer().sync(phone, watch)
        #expect(report.aToB.entries + report.bToA.entries == 2)
        let phoneTheme = try phone.suite("prefs").get("theme", as: String.self)
        #expect(phoneTheme == (try watch.suite("prefs").get("theme", as: String.self)))
        let logged = try phone.conflicts() + watch.conflicts()
        #expect(!logged.isEmpty)
        #expect(logged.allSatisfy { $0.loser.record.version < $0.winner.record.version })

        try phone.suite("prefs").set(14, forKey: "fontSize")
        let bundle = tmp.path("phone.bundle")
        try BundleExchange.export(from: phone, since: .receivedBy(watch), to: bundle)
        try BundleExchange.importBundle(at: bundle, into: watch)
        #expect(try watch.suite("prefs").get("fontSize", as: Int.self) == 14)
        try BundleExchange.importBundle(at: bundle, into: watch)   // harmless twice
        #expect(try watch.check().isSound)
    }
}
