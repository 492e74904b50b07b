import Concord
import Synchronization

/// An example of a custom store-backed property wrapper, built only on the public API
/// (`StoreProperty`, `@Stored`, `ConcordError`): it keeps a document's text in a
/// suite, like the `Document` wrapper of the DynamicProperty article keeps it in a file.
///
/// ```swift
/// struct Editor: Sendable {
///     @StoredDocument("chat", in: documents) var document
/// }
///
/// let host = UpdateHost(Editor()) { editor in show(editor.document) }
/// host.start()
/// editor.document = "Hello"            // saved durably; failures go to the handler
/// edit(text: editor.$document)         // the StoredDocument: read and write its wrappedValue
/// ```
///
/// Like SwiftUI's `@State`, the text a render sees stays what it was when the host last called
/// `update()`, so one render never sees two versions; the host calls `update()` before every
/// render, and renders again when the stored text changes (from anywhere). A failed save is
/// handed to `onError` with the reason and leaves both the stored and the shown text unchanged.
@propertyWrapper
public struct StoredDocument: StoreProperty {
    @Stored private var stored: String
    private let shown: ShownText
    private let onError: @Sendable (any Error) -> Void

    /// The document `name` in `suite`; `onError` receives failed saves (by default the unhandled-error handler).
    init(
        _ name: String, in suite: Suite,
        onError: @escaping @Sendable (any Error) -> Void = { UnhandledErrors.report($0) }
    ) {
        _stored = Stored(wrappedValue: "", name, in: suite)
        shown = ShownText(_stored.wrappedValue)
        self.onError = onError
    }

    /// The text as of the last `update()` (or the last save through this property).
    public var wrappedValue: String {
        get { shown.text }
        nonmutating set {
            do {
                try $stored.set(newValue)
                shown.text = newValue
            } catch {
                onError(error)
            }
        }
    }

    /// The document itself, for editors: they read and write its `wrappedValue`.
    public var projectedValue: StoredDocument { self }

    /// Takes the stored text (read inside the host's tracking, so a change re-renders).
    public func update() {
        shown.text = stored
    }
}

/// The text a `StoredDocument` shows between updates.
private final class ShownText: Sendable {
    private let storage: Mutex<String>
    init(_ text: String) { storage = Mutex(text) }
    var text: String {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
