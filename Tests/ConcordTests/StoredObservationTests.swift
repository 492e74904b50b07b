import Concord
import Foundation
import Observation
import TestSupport
import Testing

/// Preferences as an app would write them: an `@Observable` class whose store-backed properties
/// are `@ObservationIgnored`; the shared per-key reference behind each drives observation.
@Observable
final class Preferences {
    @ObservationIgnored @Stored var username: String
    @ObservationIgnored @Stored var theme: Theme
    var unrelated = 0

    init(suite: Suite) {
        _username = Stored(wrappedValue: "Guest", "username", in: suite)
        _theme = Stored(wrappedValue: .system, "theme", in: suite)
    }

    var greeting: String { "Hello, \(username)" }
}

/// Stores `value` as a record merged by a sync from `peer` (what the sync layer does).
func mergeFromPeer(_ value: Value?, suite: Suite, key: String, peer: ReplicaID) throws {
    try suite.store.write { w in
        let existing = try w.storedRecord(suite: suite.name, key: key)
        let hlc = max(existing?.record.version.hlc ?? 0, UInt64(Date().timeIntervalSince1970 * 1000) << 16) + 1
        _ = w.observeRemote(hlc: hlc, maxDriftMilliseconds: 60_000)
        try w.storeMerged(
            Record(version: Version(hlc: hlc, replica: peer), value: value), suite: suite.name, key: key,
            from: peer, replacing: existing)
    }
}

@Suite(.timeLimit(.minutes(1))) struct StoredObservationTests {
    @Test func trackingIsToldAboutWritesThroughThisAndOtherWrappers() throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("name", in: box.suite) var name = "Guest"
        @Stored("name", in: box.suite) var sameKey = "Other default"
        @Stored("name", in: box.suite) var optionalView: String?

        let viaSelf = Flag()
        withObservationTracking {
            _ = name
        } onChange: {
            viaSelf.raise()
        }
        name = "Ada"
        #expect(viaSelf.raised == 1, "a write through the wrapper notifies before it returns")

        let viaOther = Flag()
        withObservationTracking {
            _ = name
        } onChange: {
            viaOther.raise()
        }
        sameKey = "Grace"
        #expect(viaOther.raised == 1)
        #expect(name == "Grace")

        let viaOtherType = Flag()
        withObservationTracking {
            _ = name
        } onChange: {
            viaOtherType.raise()
        }
        optionalView = "Linus"
        #expect(viaOtherType.wait())
        #expect(name == "Linus")

        let viaSuite = Flag()
        withObservationTracking {
            _ = optionalView
        } onChange: {
            viaSuite.raise()
        }
        try box.suite.remove("name")
        #expect(viaSuite.wait())
        #expect(optionalView == nil)
        #expect(name == "Guest")
    }

    @Test func syncMergesReachTrackingAndTheChangeStream() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("theme", in: box.suite) var theme = Theme.system
        let peer = ReplicaID.random()
        var changes = $theme.changes.makeAsyncIterator()
        let told = Flag()
        withObservationTracking {
            _ = theme
        } onChange: {
            told.raise()
        }

        try mergeFromPeer(.string("dark"), suite: box.suite, key: "theme", peer: peer)
        #expect(theme == .dark)
        #expect(told.wait())
        let change = try #require(await changes.next())
        #expect(change.value == .dark)
        #expect(change.isSet)
        #expect(change.origin == .sync(peer: peer))

        try mergeFromPeer(nil, suite: box.suite, key: "theme", peer: peer)
        let deleted = try #require(await changes.next())
        #expect(deleted.value == .system)
        #expect(!deleted.isSet)
        #expect(theme == .system)
    }

    @Test func observableClassWithIgnoredStoredPropertiesStillNotifies() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let window = Preferences(suite: box.suite)
        let otherWindow = Preferences(suite: box.suite)

        let direct = Flag()
        withObservationTracking {
            _ = window.username
        } onChange: {
            direct.raise()
        }
        otherWindow.username = "Ada"
        #expect(direct.raised == 1)
        #expect(window.username == "Ada")

        let derived = Flag()
        withObservationTracking {
            _ = window.greeting
        } onChange: {
            derived.raise()
        }
        try box.suite.set("Grace", forKey: "username")
        #expect(derived.wait())
        #expect(window.greeting == "Hello, Grace")

        let untouched = Flag()
        withObservationTracking {
            _ = window.theme
        } onChange: {
            untouched.raise()
        }
        let delivered = Flag()
        let token = try window.$username.changes.start { _ in delivered.raise() }
        window.unrelated += 1
        otherWindow.username = "Linus"
        #expect(delivered.wait(), "the username change has been delivered in this process")
        #expect(untouched.raised == 0, "a write to another key does not reach an observer of theme")
        otherWindow.theme = .light
        #expect(untouched.raised == 1)
        #expect(window.theme == .light)
        token.cancel()

        let plain = Flag()
        withObservationTracking {
            _ = window.unrelated
        } onChange: {
            plain.raise()
        }
        window.unrelated += 1
        #expect(plain.raised == 1, "ordinary observed properties of the class keep working")
    }

    @Test func aWriteByAnotherProcessIsReadAtOnceAndReachesTrackingAndTheStream() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("username", in: box.suite) var username = "Guest"
        let window = Preferences(suite: box.suite)
        #expect(username == "Guest")

        for (round, name) in ["Ada", "Grace", "Linus"].enumerated() {
            var changes = $username.changes.makeAsyncIterator()
            let tracked = Flag()
            withObservationTracking {
                _ = window.greeting
            } onChange: {
                tracked.raise()
            }

            let writer = try ChildProcess("concord-test-helper", ["stored-set", box.path, box.suite.name, "username", name])
            let result = writer.wait()
            try #require(result.status == 0, "helper failed: \(result.stderr)")
            #expect(username == name, "round \(round): a read right after the other process's write reflects it")

            #expect(tracked.wait(), "round \(round): withObservationTracking was told")
            #expect(window.greeting == "Hello, \(name)")
            let change = try #require(await changes.next())
            #expect(change.value == name)
            #expect(change.origin == .otherProcess)
        }

        var changes = $username.changes.makeAsyncIterator()
        let remover = try ChildProcess("concord-test-helper", ["stored-remove", box.path, box.suite.name, "username"])
        #expect(remover.wait().status == 0)
        #expect(username == "Guest")
        let removal = try #require(await changes.next())
        #expect(removal.value == "Guest")
        #expect(!removal.isSet)
        #expect(removal.origin == .otherProcess)
    }

    @Test func quickWritesMayCoalesceButTheLastValueAlwaysArrives() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("count", in: box.suite) var count = 0
        var changes = $count.changes.makeAsyncIterator()
        for n in 1...50 { count = n }
        var last = 0
        while last != 50 {
            let change = try #require(await changes.next())
            #expect(change.value > last, "changes arrive in order")
            last = change.value
        }
    }

    /// Another process sets a key to 1…200, printing each number once its write returned; whenever
    /// this process sees a number printed, a read must return at least that number — never a
    /// cached older value.
    @Test(.offThePool) func readsAfterAnotherProcesssWritesAreNeverStale() throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("count", in: box.suite) var count = 0
        let writer = try ChildProcess("concord-test-helper", ["stored-count", box.path, box.suite.name, "count", "200"])
        var checked = 0
        while true {
            let running = writer.process.isRunning // looked at first: if it had exited, its output is complete
            let printed = writer.completeLines.last.flatMap { Int($0.dropFirst("done ".count)) } ?? 0
            let read = count
            #expect(read >= printed, "read \(read) after the writer had committed \(printed)")
            checked += 1
            if read < printed || printed == 200 { break }
            if !running {
                Issue.record("writer stopped at \(printed): \(writer.errorOutput)")
                break
            }
        }
        #expect(writer.wait().status == 0)
        #expect(count == 200)
        #expect(checked > 1)
    }

    @Test func changeStreamAndCallbacksCarryTypedValues() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        @Stored("level", in: box.suite) var level = Level.low
        let seen = Collector<Level>()
        let token = try $level.changes.start { seen.append($0.value) }
        var changes = $level.changes.makeAsyncIterator()
        level = .high
        #expect(try #require(await changes.next()).value == .high)
        #expect(await seen.arrival(of: 1))
        try await $level.reset()
        let reset = try #require(await changes.next())
        #expect(reset.value == .low)
        #expect(reset.origin == .thisProcess)
        #expect(await seen.arrival(of: 2))
        #expect(seen.values == [.high, .low])
        token.cancel()

        try await box.suite.set(99, forKey: "level")
        let bad = try #require(await changes.next())
        #expect(bad.value == .low)
        #expect(
            bad.error?.wraps(.typeMismatch(suite: box.suite.name, key: "level", stored: "Int 99", requested: "Level")) == true,
            "\(String(describing: bad.error))")
    }
}
