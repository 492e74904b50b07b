import Dispatch
import Observation
import Synchronization

/// Re-runs a closure whenever anything it read changes, calling `update()` on every
/// `StoreProperty` of its content first — a small host in the role SwiftUI plays for views
/// (`update()` on dynamic properties, then `body`).
///
/// ```swift
/// struct Greeting: Sendable {
///     @Stored("username", in: suite) var username = "Guest"
///     @Setting(\.theme) var theme
/// }
///
/// let host = UpdateHost(Greeting(), scope: scope) { view in
///     print("Hello, \(view.username) (\(view.theme))")
/// }
/// host.start()      // renders now, then again after username or theme change (coalesced)
/// host.stop()
/// ```
///
/// Each cycle runs on the host's serial queue: it finds the `StoreProperty` values among the
/// content's stored properties (and inside them), calls `update()` on each, then calls `render`,
/// all inside `withObservationTracking`; any change to what they read schedules the next cycle
/// (changes that arrive together make one cycle). Errors thrown by `render` go to `onError`.
/// A render that writes what it reads re-renders itself forever — as in SwiftUI, don't.
///
/// A host made with `on: MainActor.shared` runs its cycles on the main actor instead, so `render`
/// can touch main-actor state (UI code) without a hop; the program must run the main actor (an
/// `async` main, or the main queue), as a UI app does. With `on: someActor`, cycles run isolated to
/// that actor. Such a host's first cycle runs once the actor gets to it, after `start()` returns.
///
/// ```swift
/// let host = UpdateHost(Greeting(), on: MainActor.shared) { view in label.text = view.username }
/// host.start()      // renders on the main actor once it gets there, and again after changes
/// ```
public final class UpdateHost<Content: Sendable>: Sendable {
    /// What the host renders.
    public let content: Content
    private let scope: SettingsScope?
    private let render: @Sendable (Content) throws -> Void
    private let onError: @Sendable (any Error) -> Void
    private let queue = DispatchQueue(label: "concord.update-host")
    /// Runs a cycle on the actor the host delivers on; `nil`: on `queue`.
    private let onActor: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
    private let state = Mutex(State())

    private struct State {
        var running = false
        var pending = false
        var cycles = 0
    }

    /// A host of `content`; `render` runs with ``SettingsScope/current`` set to `scope` when given.
    ///
    /// - Parameters:
    ///   - content: What to render: its `StoreProperty` values are updated before each render.
    ///   - scope: The scope `@Setting` properties without one of their own read through.
    ///   - onError: Called with what `render` throws; the default hands it to the unhandled-error handler.
    ///   - render: Runs on the host's serial queue, first in `start()`, then after every change of
    ///     what it read.
    public init(
        _ content: Content, scope: SettingsScope? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil,
        render: @escaping @Sendable (Content) throws -> Void
    ) {
        self.content = content
        self.scope = scope
        self.render = render
        self.onError = onError ?? { error in UnhandledErrors.report(error) }
        self.onActor = nil
    }

    /// A host of `content` whose cycles run on the main actor: `render` is main-actor code.
    ///
    /// ```swift
    /// let host = UpdateHost(Greeting(), on: MainActor.shared) { view in model.title = view.username }
    /// ```
    ///
    /// - Parameters:
    ///   - content: What the host renders.
    ///   - scope: The settings scope `render` runs with, if any.
    ///   - actor: `MainActor.shared`.
    ///   - onError: Told what `render` throws.
    ///   - render: Runs on the main actor, now (from `start()`) and again after what it read changes.
    public init(
        _ content: Content, scope: SettingsScope? = nil, on actor: MainActor,
        onError: (@Sendable (any Error) -> Void)? = nil,
        render: @escaping @MainActor @Sendable (Content) throws -> Void
    ) {
        self.content = content
        self.scope = scope
        self.render = { content in try MainActor.assumeIsolated { try render(content) } }
        self.onError = onError ?? { error in UnhandledErrors.report(error) }
        self.onActor = { work in Task { @MainActor in work() } }
    }

    /// A host of `content` whose cycles run isolated to `actor`: `render` gets the actor as an
    /// `isolated` parameter, so it can use the actor's state synchronously.
    ///
    /// ```swift
    /// actor Screen { var lines: [String] = []; func show(_ line: String) { lines.append(line) } }
    /// let screen = Screen()
    /// let host = UpdateHost(Greeting(), on: screen) { screen, view in screen.show(view.username) }
    /// ```
    ///
    /// - Parameters:
    ///   - content: What the host renders.
    ///   - scope: The settings scope `render` runs with, if any.
    ///   - actor: The actor every cycle runs on.
    ///   - onError: Told what `render` throws.
    ///   - render: Runs isolated to `actor`, soon after `start()` and again after what it read changes.
    public init<A: Actor>(
        _ content: Content, scope: SettingsScope? = nil, on actor: A,
        onError: (@Sendable (any Error) -> Void)? = nil,
        render: @escaping @Sendable (isolated A, Content) throws -> Void
    ) {
        self.content = content
        self.scope = scope
        self.render = { content in try actor.assumeIsolated { actor in try render(actor, content) } }
        self.onError = onError ?? { error in UnhandledErrors.report(error) }
        self.onActor = { work in Task { await Self.run(on: actor, work) } }
    }

    private static func run<A: Actor>(on actor: isolated A, _ work: @Sendable () -> Void) { work() }

    deinit { state.withLock { $0.running = false } }

    /// Runs the first cycle (it has finished when `start` returns) and keeps re-running on changes.
    /// A host on an actor (the main actor or another) runs its first cycle there as soon as it gets to it, after `start` returns.
    public func start() {
        let starting = state.withLock { s -> Bool in
            defer { s.running = true }
            return !s.running
        }
        guard starting else { return }
        if let onActor { onActor { self.cycle() } } else { queue.sync { cycle() } }
    }

    /// Stops re-running; a cycle already running finishes.
    public func stop() {
        state.withLock { $0.running = false }
    }

    /// How many cycles have run.
    public var cycleCount: Int { state.withLock { $0.cycles } }

    /// Whether the host re-runs on changes.
    public var isRunning: Bool { state.withLock { $0.running } }

    /// Schedules a cycle now, as a change would.
    public func setNeedsUpdate() {
        let schedule = state.withLock { s -> Bool in
            guard s.running, !s.pending else { return false }
            s.pending = true
            return true
        }
        guard schedule else { return }
        let work: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            state.withLock { $0.pending = false }
            cycle()
        }
        if let onActor { onActor(work) } else { queue.async(execute: work) }
    }

    private func cycle() {
        guard isRunning else { return }
        let properties = Self.storeProperties(in: content)
        withObservationTracking {
            let body = {
                for property in properties { property.update() }
                do { try self.render(self.content) } catch { self.onError(error) }
            }
            if let scope { SettingsScope.$current.withValue(scope, operation: body) } else { body() }
        } onChange: { [weak self] in
            self?.setNeedsUpdate()
        }
        state.withLock { $0.cycles += 1 }
    }

    /// The `StoreProperty` values among the stored properties of `value`, and inside those, in order.
    static func storeProperties(in value: Any) -> [any StoreProperty] {
        var found: [any StoreProperty] = []
        for child in Mirror(reflecting: value).children {
            guard let property = child.value as? any StoreProperty else { continue }
            found.append(property)
            found.append(contentsOf: storeProperties(in: property))
        }
        return found
    }
}
