import Foundation
import TestSupport
import Testing

@testable import Concord

/// `@Stored` and typed keys: every supported type round-trips, defaults come back, optionals
/// tell "not set" from "empty", and errors are surfaced, never swallowed.
@Suite struct StoredValueTests {
    /// Sets `value` through a fresh `@Stored` wrapper, then checks what the wrapper, a second
    /// wrapper and the raw suite read back.
    func roundTrip<V: Sendable & Equatable>(
        _ wrapper: Stored<V>, _ value: V, stored expected: Value?,
        in suite: Suite, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(wrapper.wrappedValue == wrapper.key.defaultValue, "fresh key reads its default", sourceLocation: sourceLocation)
        #expect(!wrapper.projectedValue.isSet, sourceLocation: sourceLocation)
        wrapper.wrappedValue = value
        #expect(wrapper.wrappedValue == value, sourceLocation: sourceLocation)
        #expect(wrapper.projectedValue.lastError == nil, sourceLocation: sourceLocation)
        let again = Stored(wrapper.key, in: suite)
        #expect(again.wrappedValue == value, sourceLocation: sourceLocation)
        #expect(try suite.storedValue(forKey: wrapper.key.name) == expected, "stored representation", sourceLocation: sourceLocation)
    }

    @Test func everySupportedTypeRoundTrips() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let s = box.suite
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let window = Window(width: 800, height: 600, title: "Main")

        try roundTrip(Stored(wrappedValue: "Guest", "string", in: s), "Ada", stored: .string("Ada"), in: s)
        try roundTrip(Stored(wrappedValue: 0, "int", in: s), -42, stored: .int(-42), in: s)
        try roundTrip(Stored(wrappedValue: 1.5, "double", in: s), 2.75, stored: .double(2.75), in: s)
        try roundTrip(Stored(wrappedValue: false, "bool", in: s), true, stored: .bool(true), in: s)
        try roundTrip(Stored(wrappedValue: Data(), "data", in: s), Data([0, 1, 255]), stored: .data(Data([0, 1, 255])), in: s)
        try roundTrip(Stored(wrappedValue: Date(timeIntervalSince1970: 0), "date", in: s), date, stored: .date(date), in: s)
        let url = URL(string: "https://example.com/a?b=c")!
        try roundTrip(Stored(wrappedValue: URL(string: "file:///")!, "url", in: s), url, stored: .url(url), in: s)
        try roundTrip(Stored(wrappedValue: [String](), "strings", in: s), ["a", "b"], stored: .array([.string("a"), .string("b")]), in: s)
        try roundTrip(Stored(wrappedValue: [String: Int](), "counts", in: s), ["x": 1], stored: .dictionary(["x": .int(1)]), in: s)
        try roundTrip(
            Stored(wrappedValue: Value.bool(false), "value", in: s), .array([.int(1), .string("two")]),
            stored: .array([.int(1), .string("two")]), in: s)
        try roundTrip(Stored(wrappedValue: Theme.system, "theme", in: s), .dark, stored: .string("dark"), in: s)
        try roundTrip(Stored(wrappedValue: Level.low, "level", in: s), .high, stored: .int(2), in: s)
        try roundTrip(
            Stored(wrappedValue: Window(width: 1, height: 1, title: ""), "window", in: s), window,
            stored: .dictionary(["width": .int(800), "height": .int(600), "title": .string("Main")]), in: s)
        try roundTrip(
            Stored(wrappedValue: [Window](), "windows", in: s), [window],
            stored: .array([.dictionary(["width": .int(800), "height": .int(600), "title": .string("Main")])]), in: s)
        try roundTrip(Stored<String?>("optionalString", in: s), "x", stored: .string("x"), in: s)
        try roundTrip(Stored<Date?>("optionalDate", in: s), date, stored: .date(date), in: s)
        try roundTrip(Stored<Theme?>("optionalTheme", in: s), .light, stored: .string("light"), in: s)
        try roundTrip(Stored<Level?>("optionalLevel", in: s), .high, stored: .int(2), in: s)
        try roundTrip(
            Stored<Window?>("optionalWindow", in: s), window,
            stored: .dictionary(["width": .int(800), "height": .int(600), "title": .string("Main")]), in: s)
        try roundTrip(Stored<[Int]?>("optionalInts", in: s), [], stored: .array([]), in: s)
    }

    @Test func declaredPropertiesPickTheCodingOfTheirType() throws {
        let box = try Sandbox()
        defer { box.remove() }
        struct Profile {
            @Stored var username: String
            @Stored var theme: Theme
            @Stored var level: Level
            @Stored var window: Window
            @Stored var lastOpened: Date?
            @Stored var focus: Pane?
            init(_ s: Suite) {
                _username = Stored(wrappedValue: "Guest", "username", in: s)
                _theme = Stored(wrappedValue: .system, "theme", in: s)
                _level = Stored(wrappedValue: .low, "level", in: s)
                _window = Stored(wrappedValue: Window(width: 1, height: 2, title: "t"), "window", in: s)
                _lastOpened = Stored("lastOpened", in: s)
                _focus = Stored("focus", in: s)
            }
        }
        let profile = Profile(box.suite)
        profile.username = "Ada"
        profile.theme = .dark
        profile.level = .high
        profile.window = Window(width: 3, height: 4, title: "w")
        let now = Date()
        profile.lastOpened = now
        profile.focus = .search
        // What is stored depends on the type alone: store-native types as themselves, enums as their raw
        // value, Codable types as their structure, optionals as their wrapped value.
        let stored = try box.suite.snapshot()
        #expect(stored["username"] == .string("Ada"))
        #expect(stored["theme"] == .string("dark"))
        #expect(stored["level"] == .int(2))
        #expect(stored["window"] == .dictionary(["width": .int(3), "height": .int(4), "title": .string("w")]))
        #expect(stored["lastOpened"] == .date(now))
        #expect(stored["focus"] == .string("search"))
        #expect(try box.suite.get("lastOpened", as: Date.self) == now)
    }

    @Test func defaultsComeBackAfterDeleteResetAndProjectedReset() throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("username", in: box.suite) var username = "Guest"
        @Stored("count", in: box.suite) var count = 7

        username = "Ada"
        count = 1
        try box.suite.remove("username")
        #expect(username == "Guest")
        #expect(!$username.isSet)
        #expect(count == 1)

        username = "Grace"
        #expect(try box.suite.reset() == 2)
        #expect(username == "Guest")
        #expect(count == 7)

        count = 3
        try $count.reset()
        #expect(count == 7)
        #expect(try box.suite.record(forKey: "count")?.isTombstone == true, "a reset is a tombstone, so it syncs")
    }

    @Test func registeredDefaultsSitBetweenStoredValueAndWrapperDefault() throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("limit", in: box.suite) var limit = 10
        #expect(limit == 10)
        try box.suite.register(defaults: ["limit": 25])
        #expect(limit == 25)
        if case .registeredDefault(25) = $limit.reference.lookup() {} else { Issue.record("expected the registered default, got \($limit.reference.lookup())") }
        #expect(!$limit.isSet)
        limit = 30
        #expect(limit == 30)
        try $limit.reset()
        #expect(limit == 25)
    }

    @Test func optionalsTellNotSetFromEmpty() throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("nickname", in: box.suite) var nickname: String?
        @Stored("tags", in: box.suite) var tags: [String]?

        #expect(nickname == nil)
        #expect(!$nickname.isSet)
        nickname = ""
        #expect(nickname == "")
        #expect($nickname.isSet)
        #expect(try box.suite.contains("nickname"))
        nickname = nil
        #expect(nickname == nil)
        #expect(!$nickname.isSet)
        #expect(try !box.suite.contains("nickname"))
        #expect(try box.suite.record(forKey: "nickname")?.isTombstone == true)

        tags = []
        #expect(tags == [])
        #expect($tags.isSet)
        tags = nil
        #expect(tags == nil)
    }

    @Test func typedKeysOnSuites() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let s = box.suite
        let launchCount = Key("launchCount", default: 0)
        let theme = Key("theme", default: Theme.system)
        let nickname = Key<String?>("nickname")

        #expect(s[launchCount] == 0)
        s[launchCount] += 1
        s[launchCount] += 1
        #expect(s[launchCount] == 2)
        #expect(try s.get(launchCount) == 2)
        #expect(try s.get("launchCount", as: Int.self) == 2, "typed keys store plain values other code reads")

        s[theme] = .dark
        #expect(try s.get("theme", as: String.self) == "dark")
        #expect(s.contains(theme))
        try s.remove(theme)
        #expect(s[theme] == .system)
        #expect(!s.contains(theme))

        try s.set("", for: nickname)
        #expect(s[nickname] == "")
        s[nickname] = nil
        #expect(s[nickname] == nil)
        #expect(!s.contains(nickname))

        #expect(
            try s.update(launchCount) { n -> Int in
                n *= 10
                return n
            } == 20)
        #expect(s[launchCount] == 20)

        let bound = Key("bound", default: "x", suite: s)
        @Stored(bound) var viaBoundKey
        viaBoundKey = "y"
        #expect(s[bound] == "y")
        #expect(Key("late", default: 1).bound(to: s).suite?.name == s.name)
    }

    @Test func writesFromOtherCodeInThisProcessAreSeenAtOnce() throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("name", in: box.suite) var name = "Guest"
        #expect(name == "Guest") // cached now
        try box.suite.set("Ada", forKey: "name")
        #expect(name == "Ada")
        try box.suite.set("Grace", forKey: "name")
        #expect(name == "Grace")
        try box.suite.remove("name")
        #expect(name == "Guest")
    }

    @Test func snapshotReadMatchesTheCommitStampUntilTheNextCommit() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.suite.set(1, forKey: "a")
        let read = try box.suite.snapshotRead(forKey: "a")
        #expect(read.value == .int(1))
        #expect(read.snapshot == box.store.commitStamp)
        try box.suite.set(2, forKey: "other")
        #expect(read.snapshot != box.store.commitStamp)
        #expect(try box.suite.snapshotRead(forKey: "missing").value == nil)
        expectError(.invalidKey) { _ = try box.suite.snapshotRead(forKey: "") }
    }

    @Test func stampReaderFollowsCommitsAndRegistrations() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let stamps = box.store.stampReader
        #expect(stamps.commitStamp() == box.store.commitStamp)
        let commit = stamps.commitStamp()
        let generation = stamps.registeredDefaultsGeneration()
        try box.suite.register(defaults: ["x": 1])
        #expect(stamps.registeredDefaultsGeneration() != generation)
        #expect(stamps.commitStamp() == commit, "registering commits nothing")
        try box.suite.set(1, forKey: "y")
        #expect(stamps.commitStamp() != commit)
        #expect(stamps.commitStamp() == box.store.commitStamp)
    }

    @Test func aValueOfAnotherTypeReadsAsTheDefaultAndIsReportedOnce() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.suite.set(42, forKey: "name")
        try box.suite.set("purple", forKey: "theme")
        @Stored("name", in: box.suite) var name = "Guest"
        @Stored("theme", in: box.suite) var theme = Theme.system
        #expect(name == "Guest")
        #expect(name == "Guest")
        #expect(theme == .system)
        #expect($name.lastError?.wraps(.typeMismatch(suite: box.suite.name, key: "name", stored: "int", requested: "String")) == true)
        #expect($theme.lastError?.wraps(.typeMismatch(suite: box.suite.name, key: "theme", stored: "String purple", requested: "Theme")) == true)
        #expect(ReportedErrors.of(suite: box.suite.name).count == 2, "each bad value is reported once, not on every read")
        if case .failed = $name.reference.lookup() {} else { Issue.record("lookup should report the failure") }
        let readError = #expect(throws: ConcordError.self) { try box.suite.get(Key("name", default: "Guest")) }
        #expect(readError?.code == .typeMismatch && readError?.operation == "read")
        name = "Ada"
        #expect(name == "Ada")
    }

    @Test func failedWritesChangeNothingAndAreSurfaced() throws {
        let tmp = try TemporaryDirectory("wrappers")
        defer { tmp.remove() }
        ReportedErrors.install()
        var options = Store.Options()
        options.maxValueBytes = 64
        let store = try Store(path: tmp.path("replica"), options: options)
        let suite = try store.suite("small")
        @Stored("note", in: suite) var note = "empty"
        @Stored("ratio", in: suite) var ratio = 1.0
        note = "short"

        note = String(repeating: "x", count: 1_000)
        #expect(note == "short")
        #expect($note.lastError?.wraps(.valueTooLarge(key: "note", bytes: 1_003, limit: 64)) == true, "\(String(describing: $note.lastError))")
        #expect(ReportedErrors.of(suite: "small").contains { $0.key == "note" && $0.operation == "write" })
        let tooLarge = #expect(throws: ConcordError.self) { try $note.set(String(repeating: "y", count: 1_000)) }
        #expect(tooLarge?.code == .valueTooLarge && tooLarge?.operation == "write")
        #expect(note == "short")

        let nan = #expect(throws: ConcordError.self) { try $ratio.set(.nan) }
        #expect(nan?.code == .unsupportedValue && nan?.key == "ratio")
        #expect(ratio == 1.0)
        #expect(try suite.snapshot() == ["note": .string("short")])

        @Stored("", in: suite) var unnamed = 5
        #expect(unnamed == 5)
        let unnamedError = #expect(throws: ConcordError.self) { try $unnamed.set(6) }
        #expect(unnamedError?.code == .invalidKey)
        #expect($unnamed.lastError?.code == .invalidKey, "expected invalidKey, got \(String(describing: $unnamed.lastError))")
    }

    @Test func updatesFromManyThreadsAndProcessesAreNeverLost() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let counter = Stored(wrappedValue: 0, "counter", in: box.suite)
        let name = Stored(wrappedValue: "", "name", in: box.suite)
        let helpers = try (0..<2).map { _ in
            try ChildProcess("concord-test-helper", ["stored-increment", box.path, box.suite.name, "counter", "30"])
        }
        let failures = Collector<String>()
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            for i in 0..<20 {
                do { try counter.projectedValue.update { $0 += 1 } } catch { failures.append("\(error)") }
                name.wrappedValue = "w\(worker)-\(i)"
                if !name.wrappedValue.hasPrefix("w") { failures.append("read \(name.wrappedValue)") }
            }
        }
        for helper in helpers {
            let result = helper.wait()
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(failures.values.isEmpty)
        #expect(counter.wrappedValue == 2 * 30 + 3 * 20)
        #expect(try box.suite.get("counter", as: Int.self) == 120)
    }

    @Test func theProjectionReadsAndWritesLikeABindingAndUpdatesAtomically() throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("count", in: box.suite) var count = 0
        let projection = $count
        projection.value = 5
        #expect(count == 5)
        #expect(projection.value == 5)
        func bump(_ value: Stored<Int>) { value.value += 1 }
        bump(projection)
        #expect(count == 6)
        try $count.update { $0 *= 2 }
        #expect(count == 12)
        $count.value = 1
        #expect($count.value == 1)
        #expect(try box.suite.get("count", as: Int.self) == 1, "written through to the suite")
    }
}
