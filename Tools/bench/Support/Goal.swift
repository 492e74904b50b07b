import Foundation

/// One goal of issue 7, checked against this run's medians.
struct GoalCheck: Codable, Sendable {
    enum Verdict: String, Codable, Sendable { case met, missed, notMeasured = "not measured" }

    /// What the goal asks, e.g. `typed get (String, 100,000 keys) ≤ 2× raw LMDB's time`.
    let goal: String
    /// The measured quantity the goal bounds, e.g. `1.42× raw LMDB's time`.
    let measured: String
    let value: Double?
    let verdict: Verdict

    /// A goal that `value` must be at most `limit` (under it, with `strictly`; at least it, with `atLeast`).
    static func bound(
        _ goal: String, value: Double?, limit: Double, atLeast: Bool = false, strictly: Bool = false,
        describe: (Double) -> String
    ) -> GoalCheck {
        guard let value else { return GoalCheck(goal: goal, measured: "—", value: nil, verdict: .notMeasured) }
        let met = atLeast ? value >= limit : (strictly ? value < limit : value <= limit)
        return GoalCheck(goal: goal, measured: describe(value), value: value, verdict: met ? .met : .missed)
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
