import Concord
import Foundation
import TestSupport
import Testing

/// What a main-actor test collects; only touched on the main actor.
@MainActor private final class MainLog {
    var values: [String] = []
}

/// An actor of the test's own that observations deliver on.
private actor Recorder {
    var values: [String] = []
    func count() -> Int { values.count }
    func record(_ value: String) {
        preconditionIsolated()
        values.append(value)
    }
}

/// Waits (without blocking a thread) until `condition` holds, for at most 30 seconds.
@MainActor private func waitUntil(_ condition: @MainActor () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return false
}

/// Callbacks, streams and `UpdateHost` delivering on the main actor or another actor: the runtime
/// isolation checks in the handlers would stop the test were they called anywhere else.
@Suite(.timeLimit(.minutes(1))) struct ActorDeliveryTests {
    @MainActor @Test func callbacksDeliverOnTheMainActor() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let log = MainLog()
        let token = try box.suite.changes(for: "theme").start(on: MainActor.shared) { change in
            MainActor.preconditionIsolated()
            log.values.append(change.value.map { "\($0)" } ?? "nil")
        }
        let suite = box.suite
        try await Task.detached {
            try suite.set("dark", forKey: "theme")
            try suite.set("light", forKey: "theme")
        }.value
        #expect(await waitUntil { log.values.last == "string(\"light\")" })
        token.cancel()

        @Stored("username", in: box.suite) var username = "Guest"
        let names = MainLog()
        let watch = try $username.changes.start(on: MainActor.shared) { change in
            MainActor.preconditionIsolated()
            names.values.append(change.value)
        }
        try await Task.detached { try suite.set("Ada", forKey: "username") }.value
        #expect(await waitUntil { names.values == ["Ada"] })
        watch.cancel()
    }

    @Test func callbacksDeliverOnAGivenActor() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let recorder = Recorder()
        let token = try box.suite.changes(for: "theme").start(on: recorder) { recorder, change in
            recorder.record(change.key) // synchronous: the handler is isolated to the recorder
        }
        let everything = try box.store.changes().start(on: recorder) { recorder, change in recorder.record("store:" + change.key) }
        @Stored("username", in: box.suite) var username = "Guest"
        let names = try $username.changes.start(on: recorder) { recorder, change in recorder.record("name:" + change.value) }
        for theme in ["dark", "light", "system"] { try await box.suite.set(theme, forKey: "theme") }
        try await $username.set("Ada")
        #expect(await waitUntil { await recorder.count() == 8 })
        let values = await recorder.values
        #expect(values.filter { $0 == "theme" }.count == 3)
        #expect(values.filter { $0.hasPrefix("store:") } == ["store:theme", "store:theme", "store:theme", "store:username"])
        #expect(values.filter { $0.hasPrefix("name:") } == ["name:Ada"])
        token.cancel()
        everything.cancel()
        names.cancel()
    }

    @MainActor @Test func storeWideCallbacksDeliverOnTheMainActor() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let log = MainLog()
        let token = try box.store.changes().start(on: MainActor.shared) { change in
            MainActor.preconditionIsolated()
            log.values.append(change.suite + "/" + change.key)
        }
        let suite = box.suite
        try await Task.detached {
            try suite.set(1, forKey: "a")
            try suite.set(2, forKey: "b")
        }.value
        #expect(await waitUntil { log.values == [suite.name + "/a", suite.name + "/b"] })
        token.cancel()
    }

    @MainActor @Test func keyAndStoredStreamsStartWithTheValueAndStayOnTheMainActor() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let launches = Key("launches", default: 0)
        var counts = box.suite.values(of: launches).makeAsyncIterator()
        #expect(try await counts.next() == 0) // the key's default: nothing stored
        MainActor.preconditionIsolated()
        try await box.suite.update(launches) { $0 += 1 }
        #expect(try await counts.next() == 1)
        MainActor.preconditionIsolated()

        @Stored("lastOpened", in: box.suite) var lastOpened: Date?
        var opened = $lastOpened.values.makeAsyncIterator()
        #expect(try await opened.next() == .some(nil))
        let now = Date(timeIntervalSinceReferenceDate: 1_000)
        try await $lastOpened.set(now)
        #expect(try await opened.next() == .some(now))
        try await $lastOpened.reset()
        #expect(try await opened.next() == .some(nil))
        MainActor.preconditionIsolated()
    }

    @MainActor @Test func anUpdateHostOnTheMainActorRendersThere() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        struct Greeting: Sendable {
            @Stored var username: String
            init(_ suite: Suite) { _username = Stored(wrappedValue: "Guest", "username", in: suite) }
        }
        let log = MainLog()
        let host = UpdateHost(Greeting(box.suite), on: MainActor.shared) { view in
            MainActor.preconditionIsolated()
            log.values.append(view.username)
        }
        host.start()
        #expect(await waitUntil { log.values == ["Guest"] })
        let suite = box.suite
        try await Task.detached { try suite.set("Ada", forKey: "username") }.value
        #expect(await waitUntil { log.values.last == "Ada" })
        host.stop()
    }

    @Test func anUpdateHostOnAGivenActorRendersThere() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        struct Greeting: Sendable {
            @Stored var username: String
            init(_ suite: Suite) { _username = Stored(wrappedValue: "Guest", "username", in: suite) }
        }
        let recorder = Recorder()
        let host = UpdateHost(Greeting(box.suite), on: recorder) { recorder, view in
            recorder.record(view.username) // synchronous: render is isolated to the recorder
        }
        host.start()
        #expect(await waitUntil { await recorder.values == ["Guest"] })
        try await box.suite.set("Ada", forKey: "username")
        #expect(await waitUntil { await recorder.values.last == "Ada" })
        host.stop()
    }

    @Test func keyAndWrapperWritesHaveAsyncForms() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let theme = Key("theme", default: Theme.system)
        try await box.suite.set(.dark, for: theme)
        #expect(box.suite[theme] == .dark)
        try await box.suite.remove(theme)
        #expect(box.suite[theme] == .system)
        #expect(
            try await box.suite.update(Key("tags", default: [String]())) {
                $0.append("a")
                return $0.count
            } == 1)

        @Stored("count", in: box.suite) var count = 0
        #expect(
            try await $count.update {
                $0 += 2
                return $0
            } == 2)
        try await $count.set(5)
        #expect(count == 5)
        try await box.suite.set("five", forKey: "count")
        await #expect { try await $count.update { $0 += 1 } } throws: { code($0) == .typeMismatch }
    }
}
