import Concord
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How a long command shows its progress on standard error, chosen with `--progress[=json]`:
/// `--progress` redraws one line in place when standard error is a terminal (and shows nothing when
/// it is not: a log file gets no carriage returns), `--progress=json` writes one JSON object per
/// update wherever standard error goes. Without the option nothing is shown.
enum ProgressStyle: Sendable, Equatable {
    case none
    case terminal
    case json

    /// The `--progress` option every long command declares.
    static let option = CommandSpec.Option(
        name: "progress", valueName: "json",
        help: "Show progress on stderr: one line redrawn on a terminal (nothing when stderr is not one); =json: a JSON object per update.",
        choices: ["json"], valueOptional: true)

    /// The style `--progress` asks for; `isTerminal` says whether standard error is one.
    static func parse(_ a: ParsedArguments, isTerminal: Bool = isatty(2) == 1) throws -> ProgressStyle {
        guard let value = a.option("progress") else { return .none }
        switch value {
        case "": return isTerminal ? .terminal : .none
        case "json": return .json
        default:
            throw CLIError.usage("unknown --progress style '\(printable(value))' (--progress for a line on a terminal, --progress=json for JSON lines)")
        }
    }
}

/// Renders `WorkProgress` updates in a `ProgressStyle`: at most ten a second per phase (the first and
/// the completing update always), with the rate over the last few seconds (the work of a phase is
/// seldom even: a merge compares before it writes) and the time left at that rate.
final class ProgressDisplay: Sendable {
    private struct State {
        var phase = ""
        var started = ContinuousClock.now
        var last: ContinuousClock.Instant?
        /// Recent (time, done) points of the phase, oldest first, spanning about `window`.
        var points: [(at: ContinuousClock.Instant, done: Int)] = []
        var open = false
    }

    private let style: ProgressStyle
    private let io: CommandIO
    private let state = Mutex(State())
    static let interval = Duration.milliseconds(100)
    static let window = Duration.seconds(3)

    init(_ style: ProgressStyle, io: CommandIO) {
        self.style = style
        self.io = io
    }

    /// The handler to give the library, or nil when nothing is shown.
    var handler: ProgressHandler? {
        guard style != .none else { return nil }
        return { [self] progress in show(progress) }
    }

    func show(_ p: WorkProgress) {
        let now = ContinuousClock.now
        let timing: (elapsed: Double, rate: Double)? = state.withLock { s in
            if s.phase != p.phase || s.last == nil {
                (s.phase, s.started, s.last, s.points) = (p.phase, now, nil, [(now, 0)])
            } else if !p.isComplete, let last = s.last, now - last < Self.interval {
                return nil
            }
            s.last = now
            s.open = style == .terminal && !p.isComplete
            s.points.append((now, p.done))
            while s.points.count > 2, now - s.points[1].at >= Self.window { s.points.removeFirst() }
            let elapsed = Self.seconds(now - s.started)
            // The whole phase's rate once it is complete; before, the rate over the recent points.
            let first = p.isComplete ? (at: s.started, done: 0) : s.points[0]
            let span = Self.seconds(now - first.at)
            return (elapsed, span > 0 ? Double(p.done - first.done) / span : 0)
        }
        guard let (elapsed, rate) = timing else { return }
        let eta: Double? = p.isComplete ? 0 : rate > 0 ? Double(p.total - p.done) / rate : nil
        switch style {
        case .none: return
        case .json:
            io.err(
                ValueText.object([
                    ("phase", ValueText.json(p.phase)), ("done", String(p.done)), ("total", String(p.total)), ("unit", ValueText.json(p.unit)),
                    ("rate", String(format: "%.1f", rate)), ("eta", eta.map { String(format: "%.1f", $0) } ?? "null")
                ]))
        case .terminal:
            let left = eta.map { p.isComplete ? "done in \(Self.clock(elapsed))" : "\(Self.clock($0)) left" } ?? "time left unknown"
            let line = "\r\u{1b}[K\(p.phase): \(p.done)/\(p.total) \(p.unit) (\(Self.percent(p))), \(Self.rate(rate))/s, \(left)"
            FileHandle.standardError.write(Data((line + (p.isComplete ? "\n" : "")).utf8))
        }
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    /// Ends a line left open by a phase that stopped before completing (an error), so the error
    /// message starts on a line of its own.
    func close() {
        if state.withLock({ s in
            defer { s.open = false }
            return s.open
        }) {
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }

    static func percent(_ p: WorkProgress) -> String {
        p.total == 0 ? "100%" : "\(Int((Double(p.done) * 100 / Double(p.total)).rounded(.down)))%"
    }

    static func rate(_ r: Double) -> String {
        r >= 1_000_000 ? String(format: "%.1fM", r / 1_000_000) : r >= 1000 ? String(format: "%.1fk", r / 1000) : String(format: "%.0f", r)
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
