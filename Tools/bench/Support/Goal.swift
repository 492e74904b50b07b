import Foundation

/// One of the benchmark's goals, checked against this run's medians.
struct GoalCheck: Codable, Sendable {
    enum Verdict: String, Codable, Sendable { case met, missed, notMeasured = "not measured" }

    /// What the goal asks, e.g. `typed get (String, 100,000 keys) ≤ 2× raw LMDB's time`.
    let goal: String
    /// The measured quantity the goal bounds, e.g. `1.42× raw LMDB's time`.
    let measured: String
    let value: Double?
    let verdict: Verdict
    /// Where `bench --svg` draws the goal as a line: on one figure's row, at the value that figure must
    /// reach. `nil` for goals that bound no single figure (zero lost writes, two sizes alike).
    let mark: Mark?

    /// The figure a goal bounds and the value, in that figure's unit, it must reach (at least, for a
    /// rate; at most, for a time).
    struct Mark: Codable, Sendable {
        let workload: String
        let scenario: String
        let metric: String
        let subject: String
        let threshold: Double

        /// `figure` must be `ratio` times as fast as `baseline`'s median (a rate `ratio` times its rate,
        /// or a time `1/ratio` of its time).
        static func faster(_ figure: Figure?, than baseline: Figure?, by ratio: Double) -> Mark? {
            guard let figure, let baseline, let median = baseline.summary?.median, baseline.unit == figure.unit, ratio > 0 else { return nil }
            return at(figure, figure.unit.higherIsFaster ? median * ratio : median / ratio)
        }

        /// `figure` must be at most `ratio` times slower than `baseline`'s median.
        static func slower(_ figure: Figure?, than baseline: Figure?, by ratio: Double) -> Mark? {
            ratio > 0 ? faster(figure, than: baseline, by: 1 / ratio) : nil
        }

        /// `figure` must reach `threshold`, in its own unit.
        static func at(_ figure: Figure?, _ threshold: Double) -> Mark? {
            guard let figure else { return nil }
            return Mark(workload: figure.workload, scenario: figure.scenario, metric: figure.metric, subject: figure.subject, threshold: threshold)
        }
    }

    /// A goal that `value` must be at most `limit` (under it, with `strictly`; at least it, with `atLeast`);
    /// `mark` says where the chart draws it.
    static func bound(
        _ goal: String, value: Double?, limit: Double, atLeast: Bool = false, strictly: Bool = false, mark: Mark? = nil,
        describe: (Double) -> String
    ) -> GoalCheck {
        guard let value else { return GoalCheck(goal: goal, measured: "—", value: nil, verdict: .notMeasured, mark: mark) }
        let met = atLeast ? value >= limit : (strictly ? value < limit : value <= limit)
        return GoalCheck(goal: goal, measured: describe(value), value: value, verdict: met ? .met : .missed, mark: mark)
    }
}

/// Ratios of medians between two figures, for goals.
enum Ratio {
    /// Concord's time divided by the baseline's (times), or the baseline's rate divided by Concord's (rates):
    /// how many times slower Concord is (below 1: faster).
    static func slowdown(_ concord: Figure?, against baseline: Figure?) -> Double? {
        guard let concord, let baseline, let speed = baseline.speedOfConcord(concord) else { return nil }
        return 1 / speed
    }

    /// How many times faster Concord is than the baseline (below 1: slower).
    static func speedup(_ concord: Figure?, against baseline: Figure?) -> Double? {
        guard let concord, let baseline else { return nil }
        return baseline.speedOfConcord(concord)
    }

    static func format(_ x: Double) -> String { x >= 100 ? String(format: "%.0f×", x) : String(format: "%.2f×", x) }
}
