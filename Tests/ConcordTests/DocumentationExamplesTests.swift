import Concord
import Foundation
import Observation
import TestSupport
import Testing

/// "Typed keys and property wrappers": an `@Observable` class with a stored property.
@Observable
private final class GreetingPreferences {
    @ObservationIgnored @Stored var username: String
    var greeting: String { "Hello, \(username)" }

    init(suite: Suite) {
        _username = Stored(wrappedValue: "Guest", "username", in: suite)
    }
}

/// The code of the documentation's articles (Sources/Concord/Concord.docc), as written, with what
/// the articles say it does checked. Paths are a temporary directory's.
@Suite struct DocumentationExamplesTests {
    enum Theme: String, StorableValue { case system, light, dark }
    struct Window: Codable, Equatable, StorableValue {
        var width: Int
        var height: Int
    }

    /// "Getting started".
    @Test func gettingStarted() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("settings"))
        let suite = try store.suite("group.example.app")

        try suite.set("Ada", forKey: "username")
        try suite.set(3, forKey: "launchCount")
        try suite.set(["swift", "lmdb"], forKey: "recent")
        let name = try suite.get("username", as: String.self)
        let missing = try suite.get("nothing", as: Int.self)
        #expect(name == "Ada" && missing == nil)
        #expect(throws: ConcordError.typeMismatch(suite: "group.example.app", key: "username", stored: "string", requested: "Int")) {
            try suite.get("username", as: Int.self)
        }

        try suite.set(Theme.dark, forKey: "theme")
        try suite.set(Window(width: 800, height: 600), forKey: "window")
        let window = try suite.get("window", as: Window.self)
        #expect(window == Window(width: 800, height: 600))

        try suite.set(Float(0.5), forKey: "scale")
        try suite.set(3, forKey: "retries")
        try suite.set(UUID(), forKey: "installID")
        let scale = try suite.get("scale", as: Double.self)
        let retries = try suite.get("retries", as: Double.self)
        #expect(scale == 0.5 && retries == 3.0, "a Float and an exact Int read as a Double")
        #expect(try suite.get("scale", as: Float.self) == 0.5 && (try suite.get("installID", as: UUID.self)) != nil)
        try suite.set(3.0, forKey: "ratio")
        for (key, read) in [
            ("ratio", { try suite.get("ratio", as: Int.self) as Any }),
            ("ratio", { try suite.get("ratio", as: Float.self) as Any }),
            ("retries", { try suite.get("retries", as: Float.self) as Any }),
            ("scale", { try suite.get("scale", as: Int.self) as Any }),
            ("installID", { try suite.get("installID", as: String.self) as Any })
        ] as [(String, () throws -> Any)] {
            expectError(.typeMismatch, "\(key) does not convert") { _ = try read() }
        }
        try suite.set(Int(1 << 53) + 1, forKey: "huge")
        expectError(.typeMismatch, "2^53 + 1 is no Double") { try suite.get("huge", as: Double.self) }

        try suite.register(defaults: ["fontSize": 12])
        try suite.set(13, forKey: "fontSize")
        try suite.remove("fontSize")
        #expect(try suite.get("fontSize", as: Int.self) == 12, "a removed key reads as its registered default")
        try suite.set(true, forKey: "legacyFlag")
        try suite.batch { b in
            try b.set(14, forKey: "fontSize")
            try b.remove("legacyFlag")
        }
        #expect(try suite.get("fontSize", as: Int.self) == 14 && !suite.contains("legacyFlag"))
        let launches = try suite.increment("launchCount")
        #expect(launches == 4)
        try suite.update("recent", as: [String].self) { $0 = ($0 ?? []) + ["docc"] }
        #expect(try suite.get("recent", as: [String].self) == ["swift", "lmdb", "docc"])
        #expect(throws: ConcordError.reentrantCall(path: store.directory)) {
            try suite.update("recent", as: [String].self) { _ in _ = try suite.get("username", as: String.self) }
        }

        let launchCount = Key("launchCount", default: 0)
        suite[launchCount] += 1
        try suite.update(launchCount) { $0 += 1 }
        #expect(try suite.get(launchCount) == 6)

        let scratch = try Store.temporary()
        try scratch.suite("preview").set("dark", forKey: "theme")
        #expect(try scratch.suite("preview").get("theme", as: String.self) == "dark")
    }

    /// "Typed keys and property wrappers".
    @Test func typedKeysAndWrappers() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("settings"))
        let suite = try store.suite("app")

        let theme = Key("theme", default: Theme.system)
        let fontSize = Key("fontSize", default: 12)
        let lastOpened = Key<Date?>("lastOpened")
        #expect(suite[theme] == .system && suite[lastOpened] == nil)
        suite[theme] = .dark
        try suite.set(14, for: fontSize)
        let size = try suite.get(fontSize)
        #expect(size == 14)
        try suite.update(fontSize) { $0 += 2 }
        #expect(try suite.get("fontSize", as: Int.self) == 16 && (try suite.get("theme", as: String.self)) == "dark")

        struct Profile {
            let suite: Suite
            @Stored var username: String
            @Stored var theme: Theme
            @Stored var lastOpened: Date?
            // The article declares them as `@Stored("username", in: suite) var username = "Guest"` in a
            // scope where `suite` exists; a test type receives its suite in `init`.
            init(suite: Suite) {
                self.suite = suite
                _username = Stored(wrappedValue: "Guest", "username", in: suite)
                _theme = Stored(wrappedValue: .system, "theme", in: suite)
                _lastOpened = Stored("lastOpened", in: suite)
            }
        }
        let profile = Profile(suite: suite)
        #expect(profile.username == "Guest" && profile.theme == .dark && profile.lastOpened == nil)
        profile.username = "Ada"
        #expect(profile.$username.isSet)
        try profile.$username.reset()
        #expect(profile.username == "Guest")

        let prefs = GreetingPreferences(suite: suite)
        let told = Collector<String>()
        withObservationTracking {
            _ = prefs.greeting
        } onChange: {
            told.append("changed")
        }
        try suite.set("Grace", forKey: "username")
        #expect(told.wait(for: 1) && prefs.greeting == "Hello, Grace")

        struct ThemeKey: SettingKey {
            static let defaultValue = Theme.system
            static let name = "theme"
        }
        let group = try store.suite("group")
        let root = SettingsScope(suites: [suite, group], arguments: ["--theme", "light"])
        #expect(root.values[ThemeKey.self] == .light)
        let preview = root.child { $0[ThemeKey.self] = .dark }
        #expect(try preview.values[ThemeKey.self] == .dark && (try suite.get("theme", as: String.self)) == "dark")

        enum Pane: String, StorableValue { case editor, sidebar }
        let focus = Exclusive<Pane>("focus", in: suite, lease: .seconds(30))
        if try focus.claim(.editor, ifCurrent: nil) != nil {
            try focus.release(.editor)
        }
        #expect(focus.current == nil)

        struct Badge: Sendable {
            @Stored var username: String
            init(suite: Suite) { _username = Stored(wrappedValue: "Guest", "username", in: suite) }
        }
        let rendered = Collector<String>()
        let host = UpdateHost(Badge(suite: suite)) { badge in rendered.append(badge.username) }
        host.start()
        try suite.set("Ada", forKey: "username")
        #expect(rendered.wait(for: 2) && rendered.values.first == "Grace" && rendered.values.last == "Ada")
        host.stop()
    }

    /// "Observing changes" and "Using a store from many processes" (the process side is in the example's check).
    @Test func observingChanges() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("settings"))
        let suite = try store.suite("app")

        let seen = Collector<String>()
        let token = try suite.changes(for: "theme").start { change in
            seen.append(change.effectiveValue.map { "\($0)" } ?? "unset")
        }
        try suite.register(defaults: ["theme": "light"])
        try await suite.set("dark", forKey: "theme")
        try await suite.remove("theme")
        #expect(seen.wait(for: 2))
        #expect(
            seen.values.suffix(2) == ["\(Value.string("dark"))", "\(Value.string("light"))"],
            "after a removal the effective value is the registered default")
        token.cancel()

        let streamed = Collector<Change>()
        let iterating = Task {
            for try await change in suite.changes(for: "theme") {
                streamed.append(change)
                return
            }
        }
        // Iteration starts observing: write until the stream, once started, hears a write.
        var heard = false
        for _ in 0..<100 where !heard {
            try await suite.set("system", forKey: "theme")
            heard = await streamed.arrival(of: 1, timeout: 0.1)
        }
        #expect(heard && streamed.values.first?.effectiveValue == .string("system") && streamed.values.first?.origin == .thisProcess)
        iterating.cancel()

        var lastSeen: UInt64 = 0
        var keys: [String] = []
        for entry in try store.journalEntries(after: lastSeen) {
            keys.append(entry.key)
            lastSeen = entry.seq
        }
        #expect(try keys == ["theme"] && lastSeen == (try store.lastSeq()), "one live entry per key: its latest change")
    }

    /// The landing page, "Writing from async code" (Getting started), value streams and delivery on
    /// an actor ("Observing changes"), and the async forms of typed keys and `@Stored` ("Typed keys and
    /// property wrappers").
    @Test func asyncWritesStreamsAndActors() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("settings"))
        let suite = try store.suite("group.example.app")
        let app = suite

        let launchCount = Key("launchCount", default: 0)
        try await app.update(launchCount) { $0 += 1 }
        #expect(try app.get(launchCount) == 1)

        try await suite.set("dark", forKey: "theme")
        let opened = try await suite.increment("launchCount")
        try await suite.update("recent", as: [String].self) { $0 = ($0 ?? []) + ["async"] }
        try await suite.set(true, forKey: "draft")
        try await suite.batch { b in
            try b.set(16, forKey: "fontSize")
            try b.remove("draft")
        }
        #expect(try opened == 2 && (try suite.get("recent", as: [String].self)) == ["async"])
        #expect(try suite.get("fontSize", as: Int.self) == 16 && !suite.contains("draft"))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await suite.set("never", forKey: "cancelled")
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(try !suite.contains("cancelled"), "a write cancelled before it starts writes nothing")

        // Value streams: the value now, then each later one.
        var themes = suite.values(of: "theme", as: String.self).makeAsyncIterator()
        #expect(try await themes.next() == .some("dark"))
        try await suite.set("light", forKey: "theme")
        #expect(try await themes.next() == .some("light"))
        let fontSize = Key("fontSize", default: 12)
        try await suite.remove("fontSize")
        var sizes = suite.values(of: fontSize).makeAsyncIterator()
        #expect(try await sizes.next() == 12, "the key's default when nothing is stored")
        try await suite.set(18, for: fontSize)
        try await suite.update(fontSize) { $0 += 1 }
        var latest = try await sizes.next()
        if latest == 18 { latest = try await sizes.next() }
        #expect(latest == 19, "the latest value always arrives; 18 may be skipped")
        for try await size in suite.values(of: fontSize) {
            #expect(size == 19)
            break
        }

        // Delivery on the main actor and on an actor of yours.
        let onMainSeen = Collector<Value?>()
        let onMain = try suite.changes(for: "theme").start(on: MainActor.shared) { change in
            MainActor.preconditionIsolated()
            onMainSeen.append(change.effectiveValue)
        }
        actor ThemeCache {
            var theme: Value?
            func remember(_ value: Value?) { theme = value }
        }
        let cache = ThemeCache()
        let onCache = try suite.changes(for: "theme").start(on: cache) { cache, change in
            cache.remember(change.effectiveValue)
        }
        try await suite.set("system", forKey: "theme")
        #expect(await onMainSeen.arrival(of: 1) && onMainSeen.values.last == .string("system"))
        var cached: Value?
        for _ in 0..<1000 where cached != .string("system") {
            cached = await cache.theme
            if cached != .string("system") { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(cached == .string("system"))
        onMain.cancel()
        onCache.cancel()

        // `@Stored`'s async writes and values, and an UpdateHost on the main actor.
        struct Profile: Sendable {
            @Stored var username: String
            init(suite: Suite) { _username = Stored(wrappedValue: "Guest", "username", in: suite) }
        }
        let profile = Profile(suite: suite)
        try await profile.$username.set("Grace")
        for try await name in profile.$username.values {
            #expect(name == "Grace")
            break
        }
        let rendered = Collector<String>()
        let host = UpdateHost(profile, on: MainActor.shared) { badge in
            MainActor.preconditionIsolated()
            rendered.append(badge.username)
        }
        host.start()
        #expect(await rendered.arrival(of: 1) && rendered.values.first == "Grace")
        try await profile.$username.set("Ada")
        var renderedAda = false
        for _ in 0..<1000 where !renderedAda {
            renderedAda = rendered.values.last == "Ada"
            if !renderedAda { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(renderedAda, "the host renders again with the latest value")
        host.stop()
    }

    /// "Syncing replicas", "Conflicts" and "Merge policies".
    @Test func syncingConflictsAndPolicies() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone"))
        let watch = try Store(path: tmp.path("watch"))
        try phone.suite("prefs").set("light", forKey: "theme")
        try watch.suite("prefs").set("dark", forKey: "theme")

        let report = try Synchronizer().sync(phone, watch)
        #expect(report.aToB.entries == 1 && report.bToA.entries == 1 && report.conflicts.count >= 1)
        for conflict in report.conflicts {
            #expect(conflict.suite == "prefs" && conflict.key == "theme" && conflict.winner.version > conflict.loser.version)
        }
        for conflict in try phone.conflicts(suite: "prefs") {
            let lost = try conflict.loser.value()
            #expect(lost != nil && [phone.replicaID, watch.replicaID].contains(conflict.loser.version.replica))
            #expect(conflict.loserOrigin == .thisProcess || conflict.loserOrigin == .sync(peer: watch.replicaID))
        }
        let cleared = try phone.clearConflicts(suite: "prefs")
        #expect(try !cleared.isEmpty && (try phone.conflicts(suite: "prefs")).isEmpty)

        try phone.suite("prefs").set(14, forKey: "fontSize")
        try phone.suite("other").set(1, forKey: "x")
        let prefsOnly = Synchronizer(selection: try SyncSelection(suites: ["prefs"]))
        let plan = try prefsOnly.sync(phone, watch, dryRun: true)
        #expect(try !plan.isInSync && plan.recordsChanged == 1 && (try watch.suite("prefs").get("fontSize", as: Int.self)) == nil)

        let bundle = tmp.path("phone.bundle")
        try BundleExchange.export(from: phone, since: .receivedBy(watch), to: bundle)
        let applied = try BundleExchange.importBundle(at: bundle, into: watch)
        #expect(try applied.recordsChanged == 2 && (try watch.suite("prefs").get("fontSize", as: Int.self)) == 14)

        let app = try phone.suite("app")
        try app.declare(.counter, forKey: "launchCount")
        try app.declare(.set, forKeysWithPrefix: "tags.")
        try app.increment("launchCount")
        let launches = Key("launches", default: 0, policy: .counter)
        try app.update(launches) { $0 += 1 }
        @Stored("highScore", in: app, policy: .max) var highScore = 0
        highScore = 10
        highScore = 7
        #expect(highScore == 10)
        try Synchronizer().sync(phone, watch)
        try watch.suite("app").increment("launchCount")
        try app.increment("launchCount")
        #expect(try Synchronizer().sync(phone, watch).conflicts.isEmpty)
        #expect(try watch.suite("app").get("launchCount", as: Int.self) == 3 && (try app.get("launchCount", as: Int.self)) == 3)
        #expect(try app.policy(forKey: "tags.recent") == .set && (try phone.policyDeclarations(suite: "app")).count == 4)
        expectError(.policyMismatch) { try app.increment("tags.recent") }

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
        try phone.suite("settings").set(14, forKey: "fontSize")
        let settings = try phone.suite("settings", schema: schema)
        let version = try phone.schemaVersion(of: "settings")
        #expect(try version == 2 && (try settings.get("fontSize", as: Double.self)) == 14)

        try app.set(1, forKey: "gone")
        try app.remove("gone")
        #expect(try phone.collectTombstones(retention: .milliseconds(0)).collected == 0, "the watch has not merged the removal yet")
        try Synchronizer().sync(phone, watch)
        try Synchronizer().sync(phone, watch)
        #expect(try phone.collectTombstones(retention: .milliseconds(0)).collected >= 1)
        #expect(try phone.peerCursors().cursors.contains { $0.peer == watch.replicaID })
    }

    /// "Syncing replicas": live sync with a directory peer, and the options of a remote one.
    @Test func liveSync() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone"))
        try await phone.suite("prefs").set("dark", forKey: "theme")

        let live = try LiveSync(store: phone, directory: tmp.path("watch"))
        for await state in live.states() where state.isInSync {
            #expect(state.rounds >= 1)
            break
        }
        live.stop()
        #expect(try Store(path: tmp.path("watch")).suite("prefs").get("theme", as: String.self) == "dark")

        var options = RemoteOptions()
        options.rsh = "ssh -p 2222 -i ~/.ssh/sync_key"
        #expect(try RemoteAddress.parse("alice@desktop:settings").host == "desktop" && options.remoteCommand == "sync-tool")
    }

    /// "Durability and performance" and "Troubleshooting".
    @Test func durabilityOperationsAndErrors() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        var options = Store.Options()
        options.durability = .noMetaSync
        let cache = try Store(path: tmp.path("cache"), options: options)
        try cache.suite("app").set("dark", forKey: "theme")

        let stats = try cache.statistics()
        #expect(stats.map.usedBytes > 0 && stats.map.usedBytes <= stats.map.mapBytes)
        // Every commit copies the pages it changes and frees the old ones: after the opening's commits and
        // the set, some pages are on the free list, and they are among the used ones.
        #expect(stats.map.freePages > 0 && stats.map.freePages < stats.map.pagesUsed, "\(stats.map)")
        let backup = try cache.backup(to: tmp.path("backup"), compact: true)
        #expect(try backup.records == 1 && backup.lastSeq == (try cache.lastSeq()))

        // The article's handler, compiled but not installed: the test process shares one handler
        // (TestSupport's ReportedErrors), which collects for every test.
        let installArticleHandler = {
            ConcordError.setUnhandledErrorHandler { error in
                print("settings error:", error)
            }
        }
        _ = installArticleHandler
        ReportedErrors.install()
        let suite = try cache.suite("app")
        suite[Key("docs.ratio", default: 0.0)] = .nan
        #expect(ReportedErrors.containing("docs.ratio").count == 1, "a failed setter's error reaches the handler")
        expectError(.unsupportedValue) { try suite.set(Double.nan, forKey: "ratio") }

        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: tmp.path("backup"))
        #expect { _ = try Store(path: tmp.path("backup")) } throws: { error in
            code(error) == .insecure && "\(error)".contains("chmod 700")
        }
    }

    /// "Why is this value what it is?".
    @Test func explainingValues() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        var later = Store.Options()
        later.wallClock = { .seconds(Date().timeIntervalSince1970 + 1) } // "a little later", whatever the scheduling
        let laptop = try Store(path: tmp.path("laptop"))
        let desktop = try Store(path: tmp.path("desktop"), options: later)
        try laptop.setName("Ada's laptop")
        try desktop.setName("Bob's desktop")
        try laptop.suite("prefs").set("dark", forKey: "theme")
        try desktop.suite("prefs").set("light", forKey: "theme")
        try Synchronizer().sync(laptop, desktop)

        let why = try laptop.suite("prefs").explain("theme")
        #expect(why.value == .string("light") && why.layer == .stored && why.layer.description == "the stored record")
        #expect(why.writer!.description == "\(desktop.replicaID) (Bob's desktop)" && why.written != nil)
        #expect("\(why.arrival!)".hasPrefix("merged by a sync from \(desktop.replicaID) (Bob's desktop) at "))
        #expect(why.beaten.map(\.number) == [1] && why.beaten[0].value == .string("dark") && why.beaten[0].writer.name == "Ada's laptop")

        try laptop.suite("prefs").restore("theme", conflict: 1)
        try Synchronizer().sync(laptop, desktop)
        #expect(try desktop.suite("prefs").get("theme", as: String.self) == "dark")

        let app = try laptop.suite("app")
        try app.register(defaults: ["theme": "light"])
        try app.set("dark", forKey: "theme")
        try app.remove("theme")
        let deleted = try app.explain("theme")
        #expect(deleted.layer == .registeredDefault && deleted.value == .string("light"))
        #expect(deleted.record!.isTombstone && deleted.writer!.description == "\(laptop.replicaID) (Ada's laptop)")

        struct ThemeKey: SettingKey {
            static let defaultValue = Theme.system
            static let name = "theme"
        }
        let scope = SettingsScope(suites: [app])
        let preview = scope.child { $0[ThemeKey.self] = .dark }
        #expect(try preview.explain(ThemeKey.self)!.layer.description == "a scope's override (0 up)")

        try app.declare(.counter, forKey: "launches")
        try app.increment("launches", by: 2)
        let parts = try app.explain("launches").parts
        #expect(parts.map(\.isBase) == [false] && parts[0].value == .int(2) && parts[0].replica.name == "Ada's laptop")
    }

    /// "Settings that stay on this device".
    @Test func deviceLocalSettings() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let laptop = try Store(path: tmp.path("laptop"))
        let desktop = try Store(path: tmp.path("desktop"))
        let ui = try laptop.suite("ui")
        try ui.setDeviceLocal(true, forKeysWithPrefix: "window.")
        try ui.setDeviceLocal(false, forKey: "window.theme")
        try ui.set("0 0 1280 800", forKey: "window.frame")
        try ui.set("dark", forKey: "window.theme")
        try Synchronizer().sync(laptop, desktop)

        let there = try desktop.suite("ui")
        #expect(try there.get("window.frame", as: String.self) == nil)
        #expect(try there.get("window.theme", as: String.self) == "dark")
        #expect(try there.isDeviceLocal("window.frame"))

        try ui.setDeviceLocal(false, forKeysWithPrefix: "window.")
        try Synchronizer().sync(laptop, desktop)
        #expect(try there.get("window.frame", as: String.self) == "0 0 1280 800", "synced again, it went out")
    }

    /// "Values that expire".
    @Test func expiringValues() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        var options = Store.Options()
        let now = ManualClock(.seconds(Date().timeIntervalSince1970))
        options.wallClock = now.read // "fifteen minutes later", without waiting for them
        let store = try Store(path: tmp.path("phone"), options: options)
        let app = try store.suite("app")
        try app.register(defaults: ["snoozed": false])
        try await app.set(true, forKey: "snoozed", expiresAfter: .seconds(15 * 60))
        try await app.set("eyJhbGciOi…", forKey: "session", expiresAt: Date(timeIntervalSinceNow: 3600))
        #expect(try app.get("snoozed", as: Bool.self)! == true)
        #expect(try app.record(forKey: "session")!.expires!.timeIntervalSinceNow > 3500)
        now.advance(.milliseconds(15 * 60_000))
        #expect(try app.get("snoozed", as: Bool.self)! == false)

        let clock = ManualClock()
        let test = try Store.temporary(clock: clock)
        let flags = try test.suite("app")
        try await flags.set(true, forKey: "snoozed", expiresAfter: .seconds(60))
        let seen = Collector<Change>()
        let token = try flags.changes(for: "snoozed").start { change in seen.append(change) }
        clock.advance(.milliseconds(60_000))
        #expect(await seen.arrival(of: 1))
        #expect(seen.values.map { "\($0.origin) \($0.value as Any)" } == ["expired nil"])
        withExtendedLifetime(token) {}
    }

    /// A live sync whose peer cannot be opened says it is not connected and when it tries again.
    @Test func aLiveSyncThatCannotReachItsPeerSaysWhenItRetries() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone"))
        _ = FileManager.default.createFile(atPath: tmp.path("file"), contents: Data("not a directory".utf8))
        let live = try LiveSync(store: phone, directory: tmp.path("file") + "/watch", maxBackoff: .seconds(1))
        defer { live.stop() }
        var waiting: LiveSyncState?
        for await state in live.states() where state.retryAfter != nil {
            waiting = state
            break
        }
        let state = try #require(waiting)
        #expect(!state.isConnected && !state.isStopped && state.lastError != nil, "\(state)")
        #expect(state.retryAfter.map { $0 > .zero && $0 <= .seconds(2) } == true, "within the backoff's cap, with its jitter: \(state)")
    }

    /// "Is it synced yet?".
    @Test func isItSyncedYet() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone"))
        let watch = try Store(path: tmp.path("watch"))
        try await watch.setName("Ada's watch")
        let live = try LiveSync(store: phone, directory: watch.directory)
        defer { live.stop() }
        try await phone.suite("prefs").set("dark", forKey: "theme")
        try await live.waitUntilAcknowledged(timeout: .seconds(60))
        #expect(live.state.isConnected && live.state.retryAfter == nil && !live.state.isStopped, "\(live.state)")
        #expect(try watch.suite("prefs").get("theme", as: String.self) == "dark")
        let peers = try phone.peerStatus()
        #expect(peers.count == 1 && peers[0].name == "Ada's watch" && peers[0].isLive && peers[0].unacknowledged == 0)
        #expect(peers[0].lastSynced != nil)
        #expect(phone.livePeers() == [watch.replicaID])
        live.stop()
        #expect(live.state.isStopped && !live.state.isConnected)
        try await phone.suite("prefs").set("light", forKey: "theme")
        await #expect { try await phone.waitUntilAcknowledged(by: watch.replicaID, timeout: .milliseconds(200)) } throws: { code($0) == .notAcknowledged }
        try await phone.waitUntilAcknowledged(timeout: .seconds(1)) // no live peer now: nothing to wait for
    }
}
