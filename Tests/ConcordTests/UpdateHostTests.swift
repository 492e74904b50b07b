import Concord
import Foundation
import Synchronization
import TestSupport
import Testing

/// A custom store property that counts the `update()` calls it gets and what it saw then.
@propertyWrapper
struct UpdateCounter: StoreProperty {
    @Stored var source: Int
    private let log = Collector<Int>()

    init(_ key: String, in suite: Suite) { _source = Stored(wrappedValue: 0, key, in: suite) }

    var wrappedValue: [Int] { log.values }
    func update() { log.append(source) }
}

/// A composite property: the host must find the counter inside it.
struct Panel: StoreProperty {
    @UpdateCounter var counter: [Int]
    init(_ suite: Suite) { _counter = UpdateCounter("panel.count", in: suite) }
}

struct RenderError: Error {}

@Suite(.timeLimit(.minutes(1))) struct UpdateHostTests {
    @Test func reRendersWhenAnythingItReadChanges() throws {
        let l = try LayeredSandbox()
        defer { l.box.remove() }
        struct Greeting: Sendable {
            @Stored var username: String
            @Stored var unread: Int
            @Setting(\.theme) var theme
            init(_ suite: Suite) {
                _username = Stored(wrappedValue: "Guest", "username", in: suite)
                _unread = Stored(wrappedValue: 0, "unread", in: suite)
            }
        }
        let renders = Collector<String>()
        let host = UpdateHost(Greeting(l.app), scope: l.root) { view in renders.append("\(view.username)/\(view.theme)") }
        host.start()
        #expect(renders.values == ["Guest/system"], "start renders once, before it returns")

        @Stored("username", in: l.app) var username = "Guest"
        username = "Ada"
        #expect(renders.wait(for: 2))
        #expect(renders.values.last == "Ada/system")

        try l.group.set("light", forKey: "theme")
        #expect(renders.wait(for: 3))
        #expect(renders.values.last == "Ada/light")

        l.root.override("theme", text: "dark")
        #expect(renders.wait(for: 4))
        #expect(renders.values.last == "Ada/dark")

        l.app[Key("unread", default: 0)] = 5 // never read by render
        try l.app.set("Grace", forKey: "username")
        #expect(renders.wait(for: 5))
        #expect(renders.values.last == "Grace/dark")
        #expect(renders.values.count == 5, "a change to something render did not read causes no render: \(renders.values)")

        host.stop()
        try l.app.set("Linus", forKey: "username")
        username = "Edsger"
        #expect(!host.isRunning)
        #expect(renders.values.count == 5)
    }

    @Test func callsUpdateOnEveryStorePropertyBeforeEachRender() throws {
        let box = try Sandbox()
        defer { box.remove() }
        struct Screen: Sendable {
            @UpdateCounter var top: [Int]
            var panel: Panel
            let title = "not a store property"
            init(_ suite: Suite) {
                _top = UpdateCounter("top.count", in: suite)
                panel = Panel(suite)
            }
        }
        let screen = Screen(box.suite)
        let seenAtRender = Collector<[Int]>()
        let host = UpdateHost(screen) { screen in seenAtRender.append(screen.panel.counter) }
        host.start()
        #expect(seenAtRender.values == [[0]], "update() ran before the first render")
        #expect(screen.top == [0])

        try box.suite.set(7, forKey: "panel.count")
        #expect(seenAtRender.wait(for: 2), "a value read in update() is tracked")
        #expect(seenAtRender.values.last == [0, 7])
        #expect(screen.top == [0, 0])
        host.stop()
    }

    @Test func renderErrorsGoToTheHandler() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let errors = Collector<String>()
        @Stored("fail", in: box.suite) var fail = false
        let host = UpdateHost(_fail, onError: { errors.append("\($0)") }) { stored in
            if stored.wrappedValue { throw RenderError() }
        }
        host.start()
        #expect(errors.count == 0)
        fail = true
        #expect(errors.wait(for: 1))
        #expect(errors.values.first?.contains("RenderError") == true)
        host.stop()
    }

    @Test func theDocumentWrapperWorksThroughTheUpdateCycle() throws {
        let box = try Sandbox()
        defer { box.remove() }
        struct ChatView: Sendable {
            @StoredDocument var document: String
            init(_ suite: Suite) { _document = StoredDocument("chat", in: suite) }
        }
        try box.suite.set("hello", forKey: "chat")
        let view = ChatView(box.suite)
        #expect(view.document == "hello", "the stored text is loaded when the wrapper is made")

        let shown = Collector<String>()
        let host = UpdateHost(view) { view in shown.append(view.document) }
        host.start()
        #expect(shown.values == ["hello"])

        // Another process edits the document: the host calls update(), then renders the new text.
        let writer = try ChildProcess("concord-test-helper", ["stored-set", box.path, box.suite.name, "chat", "hi from elsewhere"])
        #expect(writer.wait().status == 0)
        #expect(shown.wait(for: 2))
        #expect(shown.values.last == "hi from elsewhere")

        // Writing through the wrapper (or its projected value) saves it and re-renders.
        view.$document.wrappedValue = "typed here"
        #expect(try box.suite.get("chat", as: String.self) == "typed here")
        #expect(view.document == "typed here")
        #expect(shown.wait(for: 3))
        #expect(shown.values.last == "typed here")
        host.stop()
    }

    @Test func theDocumentKeepsItsSnapshotUntilUpdate() throws {
        let box = try Sandbox()
        defer { box.remove() }
        @StoredDocument("notes", in: box.suite) var notes
        #expect(notes == "")
        try box.suite.set("changed elsewhere", forKey: "notes")
        #expect(notes == "", "between updates a render sees one version")
        _notes.update()
        #expect(notes == "changed elsewhere")
    }

    @Test func aFailedDocumentSaveIsHandedToTheHandlerAndChangesNothing() throws {
        let tmp = try TemporaryDirectory("wrappers")
        defer { tmp.remove() }
        var options = Store.Options()
        options.maxValueBytes = 32
        let suite = try Store(path: tmp.path("replica"), options: options).suite("docs")
        let failures = Collector<ConcordError>()
        @StoredDocument("draft", in: suite, onError: { if let error = $0 as? ConcordError { failures.append(error) } }) var draft
        draft = "short"
        draft = String(repeating: "long ", count: 20)
        #expect(failures.count == 1)
        #expect(failures.values.first?.key == "draft")
        #expect(failures.values.first?.operation == "write")
        #expect(failures.values.first?.code == .valueTooLarge, "expected valueTooLarge: \(failures.values)")
        #expect(draft == "short")
        #expect(try suite.get("draft", as: String.self) == "short")
    }
}
