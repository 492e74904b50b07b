import Concord
import Foundation
import TestSupport
import Testing

/// The tour of the store and of sync (the README and the topic articles, whose blocks doc-examples
/// compiles), run: each behaves as the articles say.
@Suite struct ReadmeExamplesTests {
    enum Theme: String, StorableValue { case light, dark }
    @MainActor final class MainActorLog { var values: [Value?] = [] }
    struct Window: Codable, Equatable, StorableValue {
        var width: Int
        var height: Int
    }

    /// "Progress of long work": the README's handlers, each told the real total and last `done == total`.
    @Test func progressOfLongWork() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let laptop = try Store(path: tmp.path("laptop"))
        let phone = try Store(path: tmp.path("phone"))
        try laptop.suite("prefs").batch { b in for i in 0..<1500 { try b.set(i, forKey: "k\(i)") } }
        let seen = Collector<WorkProgress>()
        var synchronizer = Synchronizer()
        synchronizer.onProgress = { p in seen.append(p) }
        try synchronizer.sync(laptop, phone)
        try BundleExchange.export(from: laptop, since: .beginning, to: tmp.path("all.bundle")) { p in seen.append(p) }
        try laptop.backup(to: tmp.path("backup"), compact: true) { p in seen.append(p) }
        let last = Dictionary(seen.values.map { ($0.phase, $0) }) { _, new in new }
        #expect(last["sync"] == WorkProgress(phase: "sync", done: 1500, total: 1500, unit: "changes"))
        #expect(last["export"] == WorkProgress(phase: "export", done: 1500, total: 1500, unit: "records"))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: tmp.path("backup") + "/data.mdb")[.size] as? Int)
        #expect(last["backup"] == WorkProgress(phase: "backup", done: size, total: size, unit: "bytes"))
    }

    @Test func theLibraryTour() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("settings"))
        let suite = try store.suite("group.example.app")

        try await suite.set("Ada", forKey: "username")
        try await suite.set(3, forKey: "launchCount")
        try await suite.set(["a", "b"], forKey: "recent")
        #expect(try suite.get("username", as: String.self) == "Ada")
        #expect(throws: ConcordError.typeMismatch(suite: "group.example.app", key: "username", stored: "string", requested: "Int")) {
            try suite.get("username", as: Int.self)
        }

        try suite.register(defaults: ["theme": "light"])
        try await suite.set("dark", forKey: "theme")
        try await suite.remove("theme")
        #expect(try suite.get("theme", as: String.self) == "light")

        try await suite.batch { b in
            try b.set(1, forKey: "a")
            try b.remove("b")
        }
        #expect(try await suite.increment("launchCount") == 4)
        try await suite.update("recent", as: [String].self) { $0 = ($0 ?? []) + ["c"] }
        #expect(try suite.get("recent", as: [String].self) == ["a", "b", "c"])

        try await suite.set(Theme.dark, forKey: "theme")
        #expect(try suite.get("theme", as: Theme.self) == .dark)
        try await suite.set(Window(width: 800, height: 600), forKey: "window")
        #expect(try suite.get("window", as: Window.self) == Window(width: 800, height: 600))
        #expect(try suite.value(forKey: "window")?.kind == .dictionary)
        let installID = UUID()
        try await suite.set(installID, forKey: "installID")
        #expect(try suite.value(forKey: "installID") == .uuid(installID))

        try await suite.reset()
        #expect(try suite.keys().isEmpty)
        // One live journal entry per key ever written (username, launchCount, recent, theme, a, window, installID), now tombstones.
        #expect(try store.journalEntries(after: 0).count == 7)
        #expect(try store.journalEntries(after: 0).allSatisfy { $0.record.isTombstone })
    }

    /// "Observing changes": a value stream starts with the current value; a change stream with the
    /// next commit; callbacks on the main actor; the promise (the latest value, in commit order).
    @MainActor @Test func theObservingTour() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("group.example.app")
        try await suite.set("light", forKey: "theme")

        var themes = suite.values(of: "theme", as: String.self).makeAsyncIterator()
        var changes = suite.changes(for: "theme").makeAsyncIterator()
        #expect(try await themes.next() == .some("light")) // the value now
        let seen = MainActorLog()
        let onMain = try suite.changes(for: "theme").start(on: MainActor.shared) { change in
            MainActor.preconditionIsolated()
            seen.values.append(change.effectiveValue)
        }
        try await suite.set("dark", forKey: "theme")
        #expect(try await themes.next() == .some("dark")) // then as it changes
        let change = try #require(try await changes.next()) // the changes from now on
        #expect(change.effectiveValue == .string("dark") && change.origin == .thisProcess)
        for theme in ["a", "b", "c"] { try await suite.set(theme, forKey: "theme") }
        var latest: String?? = nil
        while latest != .some("c") { latest = try await themes.next() } // the latest always arrives
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.values.last != .string("c"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(seen.values.first == .string("dark") && seen.values.last == .string("c"))
        onMain.cancel()
        #expect(try store.journalEntries(after: 0).count == 1) // one live entry per key: its latest change
    }

    /// "Typed keys and `@Stored`": the README's code, with its loops taking what they say they get.
    @Test func theTypedKeysTour() async throws {
        enum Theme: String, StorableValue { case system, light, dark }
        let store = try Store.temporary()
        let app = try store.suite("app")

        let launchCount = Key("launchCount", default: 0)
        app[launchCount] += 1
        try await app.update(launchCount) { $0 += 1 }
        var counts = app.values(of: launchCount).makeAsyncIterator()
        #expect(try await counts.next() == 2) // now
        app[launchCount] += 1
        #expect(try await counts.next() == 3) // then as it changes

        struct Profile {
            let app: Suite
            @Stored var username: String
            @Stored var theme: Theme
            @Stored var lastOpened: Date?
            init(app: Suite) {
                self.app = app
                _username = Stored(wrappedValue: "Guest", "username", in: app)
                _theme = Stored(wrappedValue: .system, "theme", in: app)
                _lastOpened = Stored("lastOpened", in: app)
            }
        }
        let profile = Profile(app: app)
        profile.username = "Ada"
        #expect(profile.$username.isSet)
        var names = profile.$username.values.makeAsyncIterator()
        var changes = profile.$username.changes.makeAsyncIterator()
        #expect(try await names.next() == "Ada")
        try await profile.$username.reset()
        #expect(profile.username == "Guest")
        #expect(try await names.next() == "Guest")
        let change = try #require(try await changes.next())
        #expect(change.value == "Guest" && change.origin == .thisProcess && !change.isSet)
        #expect(profile.theme == .system && profile.lastOpened == nil)
    }

    @Test func theSyncTour() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone"))
        let watch = try Store(path: tmp.path("watch"))
        try await phone.suite("prefs").set("light", forKey: "theme")
        try await watch.suite("prefs").set("dark", forKey: "theme")
        let report = try await Synchronizer().sync(phone, watch)
        #expect(report.aToB.entries + report.bToA.entries == 2)
        let phoneTheme = try phone.suite("prefs").get("theme", as: String.self)
        #expect(phoneTheme == (try watch.suite("prefs").get("theme", as: String.self)))
        let logged = try phone.conflicts() + watch.conflicts()
        #expect(!logged.isEmpty)
        #expect(logged.allSatisfy { $0.loser.version < $0.winner.version })

        try await phone.suite("prefs").set(14, forKey: "fontSize")
        let bundle = tmp.path("phone.bundle")
        try BundleExchange.export(from: phone, since: .receivedBy(watch), to: bundle)
        try BundleExchange.importBundle(at: bundle, into: watch)
        #expect(try watch.suite("prefs").get("fontSize", as: Int.self) == 14)
        try BundleExchange.importBundle(at: bundle, into: watch) // harmless twice
        #expect(try watch.integrityReport().isSound)
    }

    /// "Why is this value what it is?": the README's code on two replicas whose themes conflicted.
    @Test func theWhyTour() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        var later = Store.Options()
        later.wallClock = { .seconds(Date().timeIntervalSince1970 + 1) } // "a little later", whatever the scheduling
        let laptop = try Store(path: tmp.path("laptop"))
        let desktop = try Store(path: tmp.path("desktop"), options: later)
        try desktop.setName("Bob's desktop")
        try laptop.suite("prefs").set("dark", forKey: "theme")
        try desktop.suite("prefs").set("light", forKey: "theme")
        try Synchronizer().sync(laptop, desktop)

        try laptop.setName("Ada's laptop")
        let why = try laptop.suite("prefs").explain("theme")
        #expect(why.value == .string("light") && "\(why.layer)" == "the stored record")
        #expect("\(why.writer!)" == "\(desktop.replicaID) (Bob's desktop)")
        #expect("\(why.arrival!)".hasPrefix("merged by a sync from \(desktop.replicaID) (Bob's desktop) at "))
        #expect(why.beaten.count == 1 && why.beaten[0].number == 1 && "\(why.beaten[0].writer)" == "\(laptop.replicaID) (Ada's laptop)")
        try laptop.suite("prefs").restore("theme", conflict: 1)
        #expect(try laptop.suite("prefs").get("theme", as: String.self) == "dark")
        try Synchronizer().sync(laptop, desktop)
        #expect(try desktop.suite("prefs").get("theme", as: String.self) == "dark", "synced as usual")
        expectError(.invalidReplicaName) { try laptop.setName(String(repeating: "x", count: 65)) }
    }

    /// "Merge policies": the README's code, then what it says happens across two replicas.
    @Test func theMergePoliciesTour() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("phone"))
        let watch = try Store(path: tmp.path("watch"))

        let app = try store.suite("app")
        try app.declare(.counter, forKey: "launchCount") // stored, synced; the later of two concurrent declarations wins
        try app.declare(.set, forKeysWithPrefix: "tags.") // every key starting with "tags."
        try app.increment("launchCount") // this replica's contribution
        try app.update("tags.recent", as: [String].self) { $0 = ($0 ?? []) + ["swift"] } // an update merges as its difference
        try app.set(5, forKey: "launchCount") // a set: 5 everywhere, plus increments it had not seen

        let launches = Key("launches", default: 0, policy: .counter) // a key declares its policy with its first write
        try app.update(launches) { $0 += 1 } // not `app[launches] += 1`, which sets
        @Stored("highScore", in: app, policy: .max) var highScore = 0 // @Stored declares it too
        highScore = 10
        highScore = 7 // still 10: a max key only goes up
        #expect(highScore == 10)
        try Synchronizer().sync(store, watch)
        let other = try watch.suite("app")
        try other.increment("launchCount")
        try app.increment("launchCount")
        try other.update("tags.recent", as: [String].self) { $0 = ($0 ?? []) + ["linux"] }
        try other.update(launches) { $0 += 1 }
        let report = try Synchronizer().sync(store, watch)
        #expect(report.conflicts.isEmpty, "concurrent increments and additions are not conflicts")
        for suite in [app, other] {
            #expect(try suite.get("launchCount", as: Int.self) == 7)
            #expect(try suite.get("tags.recent", as: [String].self) == ["linux", "swift"])
            #expect(try suite.get(launches) == 2)
            #expect(try suite.get("highScore", as: Int.self) == 10)
            #expect(try suite.policy(forKey: "launches") == .counter && (try suite.policy(forKey: "highScore")) == .max)
        }
        #expect(
            throws: ConcordError.policyMismatch(
                suite: "app", key: "tags.recent", policy: .set,
                reason: "an add-wins set cannot be incremented; add or remove members instead")
        ) {
            try app.increment("tags.recent")
        }
    }

    /// "Schema migrations": the README's schema, applied to values an older program wrote.
    @Test func theSchemaMigrationsTour() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("settings"))
        let old = try store.suite("settings")
        try old.set("dark", forKey: "theme")
        try old.set(14, forKey: "fontSize")
        try old.set(true, forKey: "legacyFlag")
        try old.set(3, forKey: "launchCount")

        let schema = Schema(
            version: 2,
            migrations: [
                Migration(
                    to: 2,
                    .rename("theme", to: "appearance.theme"),
                    .convert("fontSize", from: Int.self, to: Double.self) { Double($0) },
                    .drop("legacyFlag"),
                    .policy(.counter, forKey: "launchCount"))
            ])
        let settings = try store.suite("settings", schema: schema) // runs what this replica has not run, once
        #expect(try store.schemaVersion(of: "settings") == 2)

        #expect(try settings.get("appearance.theme", as: String.self) == "dark")
        #expect(try settings.get("theme", as: String.self) == nil)
        #expect(try settings.get("fontSize", as: Double.self) == 14)
        #expect(try !settings.contains("legacyFlag"))
        #expect(try settings.increment("launchCount") == 4 && (try settings.policy(forKey: "launchCount")) == .counter)
        let seq = try store.lastSeq()
        _ = try store.suite("settings", schema: schema)
        #expect(try store.lastSeq() == seq, "once per replica")
        #expect(throws: ConcordError.newerSchema(suite: "settings", stored: 2, supported: 1)) {
            _ = try store.suite("settings", schema: Schema(version: 1))
            try store.suite("settings").set("x", forKey: "theme")
        }
    }

    /// "Exclusive choice": the README's code, run as it is written.
    @Test func theExclusiveChoiceTour() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let app = try Store(path: tmp.path("settings")).suite("app")
        enum Pane: String, StorableValue { case editor, sidebar }
        let lost = Collector<String>()

        let focus = Exclusive<Pane>("focus", in: app, lease: .seconds(30))
        if try focus.claim(.editor, ifCurrent: nil) != nil { // exactly one racing process wins
            let watch = try focus.observeLoss { lease in lost.append("lost \(lease.choice)") } // taken, expired, or replaced by a sync
            #expect(try focus.attemptClaim(.sidebar, ifCurrent: nil) == .refused(current: .editor))
            try focus.renew() // more often than every 30 s while it works
            try focus.release(.editor)
            #expect(lost.wait(for: 1) && lost.values == ["lost editor"])
            watch.cancel()
        }
        #expect(focus.current == nil)

        @Exclusive("focus", in: app) var focused: Pane? // a property (in a type, or local) holding the choice
        focused = .sidebar // setting it moves the choice, held by this process
        #expect(focus.current == .sidebar && focus.currentLease?.isHeldByThisProcess == true)
    }

    /// "Settings that stay on this device", "Is it synced yet?" and "Values that expire": the README's code.
    @Test func deviceLocalStatusAndExpiry() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let laptop = try Store(path: tmp.path("laptop"))
        let desktop = try Store(path: tmp.path("desktop"))
        let ui = try laptop.suite("ui")
        try ui.setDeviceLocal(true, forKeysWithPrefix: "window.")
        try ui.setDeviceLocal(false, forKey: "window.theme")
        try await ui.set("0 0 1280 800", forKey: "window.frame")
        #expect(try ui.isDeviceLocal("window.frame") && !ui.isDeviceLocal("window.theme"))

        let live = try LiveSync(store: laptop, directory: desktop.directory)
        defer { live.stop() }
        try await laptop.suite("prefs").set("dark", forKey: "theme")
        try await live.waitUntilAcknowledged(timeout: .seconds(60))
        let peers = try laptop.peerStatus()
        #expect(peers.map(\.peer) == [desktop.replicaID] && peers[0].isLive && peers[0].unacknowledged == 0)
        #expect(try desktop.suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try desktop.suite("ui").get("window.frame", as: String.self) == nil)

        let app = try laptop.suite("app")
        let token = "abc"
        try await app.set(true, forKey: "snoozed", expiresAfter: .seconds(15 * 60))
        try await app.set(token, forKey: "session", expiresAt: Date(timeIntervalSinceNow: 3600))
        #expect(try app.record(forKey: "session")!.expires!.timeIntervalSinceNow > 3500)
        #expect(try app.get("snoozed", as: Bool.self) == true)
    }
}
