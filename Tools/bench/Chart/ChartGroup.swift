/// One scenario and metric of a workload as the chart draws it: each system's median, min and max as
/// ratios to the fastest median of the group (1 is the fastest; 3 is three times slower), whatever
/// the unit, so every group shares one axis.
struct ChartGroup {
    struct Row {
        let figure: Figure
        /// Median, min and max as "times slower than the fastest"; `nil` when the figure was not measured.
        let ratio: Double?
        let low: Double?
        let high: Double?
        /// The goals drawn on this row: where (as a ratio) and whether met.
        var goals: [(ratio: Double, check: GoalCheck)] = []
    }

    let workload: String
    let scenario: String
    let metric: String
    let unit: Figure.Unit
    var rows: [Row]

    /// The best median: the lowest time or the highest rate of the group.
    let best: Double?

    init(_ figures: [Figure]) {
        let first = figures[0]
        workload = first.workload
        scenario = first.scenario
        metric = first.metric
        unit = first.unit
        let medians = figures.compactMap { $0.summary?.median }.filter { $0 > 0 }
        let best = first.unit.higherIsFaster ? medians.max() : medians.min()
        self.best = best
        rows = figures.map { figure in
            guard let s = figure.summary, let best, s.median > 0 else { return Row(figure: figure, ratio: nil, low: nil, high: nil) }
            let convert = { (value: Double) in Self.ratio(value, best: best, unit: figure.unit) }
            let a = convert(s.min)
            let b = convert(s.max)
            return Row(figure: figure, ratio: convert(s.median), low: Swift.min(a, b), high: Swift.max(a, b))
        }
    }

    /// `value` as times slower than `best` (a time over the best time; the best rate over a rate).
    static func ratio(_ value: Double, best: Double, unit: Figure.Unit) -> Double {
        guard value > 0, best > 0 else { return .infinity }
        return unit.higherIsFaster ? best / value : value / best
    }

    /// Attaches a goal whose mark falls in this group; false when it does not.
    mutating func attach(_ goal: GoalCheck) -> Bool {
        guard let mark = goal.mark, mark.workload == workload, mark.scenario == scenario, mark.metric == metric, let best,
            let index = rows.firstIndex(where: { $0.figure.subject == mark.subject })
        else { return false }
        rows[index].goals.append((Self.ratio(mark.threshold, best: best, unit: unit), goal))
        return true
    }

    /// The figures of a report the chart can compare (speeds: times and rates, not counts), grouped
    /// by workload, scenario and metric in the table's order, with every marked goal attached.
    /// Returns the goals no group took (goals that bound no single figure).
    static func groups(of report: BenchReport) -> (groups: [ChartGroup], unmarked: [GoalCheck]) {
        var order: [String] = []
        var byID: [String: [Figure]] = [:]
        for f in report.figures where f.unit.isSpeed {
            let id = f.workload + "|" + f.scenario + "|" + f.metric
            if byID[id] == nil { order.append(id) }
            byID[id, default: []].append(f)
        }
        var groups = order.map { ChartGroup(byID[$0]!) }
        var unmarked: [GoalCheck] = []
        for goal in report.goals {
            var placed = false
            for i in groups.indices where !placed { placed = groups[i].attach(goal) }
            if !placed { unmarked.append(goal) }
        }
        return (groups, unmarked)
    }
}
