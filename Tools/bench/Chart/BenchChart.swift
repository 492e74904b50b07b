import ChartSVG
import Foundation

/// `bench --svg`: the report as one chart, readable without the table. Per workload, each scenario's
/// systems side by side as bars on one axis — times slower than the fastest of the scenario, on a log
/// scale when the spread needs it — with the min–max over runs as a whisker and each goal as a line
/// on the row it bounds (green met, red missed), its words beneath. Fed by the same `BenchReport`
/// the table prints, so the two never disagree.
struct BenchChart {
    let report: BenchReport

    private static let width = 1240.0
    private static let plotStart = 500.0
    private static let plotEnd = 980.0
    private static let valueX = 992.0
    private static let subjectX = 40.0
    private static let headerHeight = 28.0
    private static let groupHeight = 19.0
    private static let rowHeight = 18.0
    private static let goalHeight = 15.0
    private static let noteHeight = 16.0

    /// The least room between tick lines; labels also keep clear of each other (see `labeled`).
    private static let tickSpacing = 20.0
    private static let metColor = "#14853b"
    private static let missedColor = "#d12a2a"

    func svg() -> SVGDocument {
        let (groups, unmarked) = ChartGroup.groups(of: report)
        let titles = Dictionary(report.workloads.map { ($0.name, $0.title) }, uniquingKeysWith: { a, _ in a })
        let scale = Self.scale(for: groups)
        var doc = SVGDocument(width: Self.width, height: 100)
        var y = heading(&doc)
        y = legend(&doc, y: y)
        y = axis(&doc, scale: scale, y: y + 14, labelAbove: true)
        let plotTop = y
        let counts = report.figures.filter { !$0.unit.isSpeed }
        let plotHeight = Self.height(of: groups)
        grid(&doc, scale: scale, top: plotTop, bottom: plotTop + plotHeight)
        var lastWorkload = ""
        for group in groups {
            if group.workload != lastWorkload {
                doc.rect(x: 10, y: y + 4, width: Self.width - 20, height: Self.headerHeight - 6, fill: "#eef2f7")
                doc.text(titles[group.workload] ?? group.workload, x: 18, y: y + 20, size: 14, bold: true)
                y += Self.headerHeight
                lastWorkload = group.workload
            }
            y = draw(group, &doc, scale: scale, y: y)
        }
        y = axis(&doc, scale: scale, y: max(y, plotTop) + 2, labelAbove: false)
        y = footer(&doc, unmarked: unmarked, counts: counts, titles: titles, y: y + 10)
        doc.resize(height: y + 16)
        return doc
    }

    // MARK: - Parts

    private func heading(_ doc: inout SVGDocument) -> Double {
        let m = report.machine
        doc.text("Concord bench: every system's median per scenario, as times slower than the fastest", x: 18, y: 30, size: 18, bold: true)
        let run = report.quick ? "--quick: a smoke check, not a measurement" : "full run"
        let line =
            "\(m.date) · \(m.cores) cores (\(m.cpu)), \(m.memoryGiB) GiB, \(m.kernel) · load average \(m.loadAverage) · \(run), "
            + String(format: "%.0f s", report.seconds)
        doc.text(TextWidth.fit(line, size: 12, width: Self.width - 36), x: 18, y: 50, size: 12, fill: "#555")
        let runs =
            "Each bar is a median over runs (\(report.defaultRuns) unless the row says otherwise); shorter is faster. "
            + "Times and rates alike are drawn as times slower than the fastest system of their scenario."
        doc.text(TextWidth.fit(runs, size: 12, width: Self.width - 36), x: 18, y: 67, size: 12, fill: "#555")
        return 80
    }

    private func legend(_ doc: inout SVGDocument, y: Double) -> Double {
        var x = 18.0
        for entry in SubjectPalette.legend {
            doc.rect(x: x, y: y + 4, width: 22, height: 11, fill: entry.color)
            doc.text(entry.label, x: x + 28, y: y + 14, size: 12)
            x += 28 + TextWidth.of(entry.label, size: 12) + 22
        }
        let second = y + 22
        x = 18
        doc.line(x1: x, y1: second + 9, x2: x + 30, y2: second + 9, stroke: "#222", width: 1.3)
        doc.line(x1: x, y1: second + 5, x2: x, y2: second + 13, stroke: "#222", width: 1.3)
        doc.line(x1: x + 30, y1: second + 5, x2: x + 30, y2: second + 13, stroke: "#222", width: 1.3)
        doc.text("min – max over the runs", x: x + 38, y: second + 13, size: 12)
        x += 38 + TextWidth.of("min – max over the runs", size: 12) + 24
        for (label, color) in [("goal met", Self.metColor), ("goal missed (where the figure had to reach)", Self.missedColor)] {
            doc.line(x1: x + 4, y1: second + 1, x2: x + 4, y2: second + 17, stroke: color, width: 3)
            doc.text(label, x: x + 14, y: second + 13, size: 12)
            x += 14 + TextWidth.of(label, size: 12) + 24
        }
        return second + 20
    }

    /// Tick labels (and, above the plot, the axis title) at `y`; returns where the plot continues.
    private func axis(_ doc: inout SVGDocument, scale: ChartScale, y: Double, labelAbove: Bool) -> Double {
        var y = y
        if labelAbove {
            let title = "× = times slower than the fastest of its scenario (1× is the fastest)" + (scale.logarithmic ? ", log scale" : "")
            doc.text(title, x: (Self.plotStart + Self.plotEnd) / 2, y: y + 12, size: 12, anchor: .middle, bold: true)
            y += 20
        }
        for t in Self.labeled(scale) {
            doc.text(Self.tickLabel(t), x: scale.position(t), y: y + 12, size: 11, anchor: .middle, fill: "#444")
        }
        doc.line(x1: Self.plotStart, y1: labelAbove ? y + 17 : y, x2: Self.plotEnd, y2: labelAbove ? y + 17 : y, stroke: "#888")
        return y + 18
    }

    private func grid(_ doc: inout SVGDocument, scale: ChartScale, top: Double, bottom: Double) {
        for t in scale.ticks(spacing: Self.tickSpacing) {
            let x = scale.position(t)
            doc.line(x1: x, y1: top, x2: x, y2: bottom, stroke: t == 1 ? "#9a9a9a" : "#e3e3e3", width: t == 1 ? 1.2 : 1)
        }
    }

    private func draw(_ group: ChartGroup, _ doc: inout SVGDocument, scale: ChartScale, y: Double) -> Double {
        var y = y
        let heading = group.scenario + " — " + group.metric
        doc.text(TextWidth.fit(heading, size: 12, width: Self.plotStart - 30), x: 26, y: y + 14, size: 12, fill: "#333")
        y += Self.groupHeight
        for row in group.rows {
            let color = SubjectPalette.entry(for: row.figure.subject).color
            let mid = y + Self.rowHeight / 2
            doc.text(
                TextWidth.fit(row.figure.subject, size: 11.5, width: Self.plotStart - Self.subjectX - 12), x: Self.subjectX, y: y + 13, size: 11.5)
            if let ratio = row.ratio, let s = row.figure.summary {
                let end = scale.position(ratio)
                let tooltip = "\(row.figure.subject): median \(FigureTable.format(s.median, group.unit)) over \(s.runs) runs"
                doc.rect(x: Self.plotStart, y: y + 3, width: end - Self.plotStart, height: Self.rowHeight - 6, fill: color, tooltip: tooltip)
                if let low = row.low, let high = row.high, s.runs > 1 {
                    let a = scale.position(low)
                    let b = scale.position(high)
                    doc.line(x1: a, y1: mid, x2: b, y2: mid, stroke: "#222", width: 1.3)
                    doc.line(x1: a, y1: mid - 4, x2: a, y2: mid + 4, stroke: "#222", width: 1.3)
                    doc.line(x1: b, y1: mid - 4, x2: b, y2: mid + 4, stroke: "#222", width: 1.3)
                }
                var value = FigureTable.format(s.median, group.unit) + " · " + (ratio <= 1.0005 ? "fastest" : Ratio.format(ratio))
                if s.runs != report.defaultRuns { value += " · \(s.runs) run" + (s.runs == 1 ? "" : "s") }
                doc.text(TextWidth.fit(value, size: 11, width: Self.width - Self.valueX - 8), x: Self.valueX, y: y + 13, size: 11)
            } else {
                let note = row.figure.note ?? "not measured"
                doc.text(
                    TextWidth.fit(note, size: 11, width: Self.width - Self.plotStart - 12), x: Self.plotStart + 6, y: y + 13, size: 11, fill: "#777")
            }
            for goal in row.goals {
                let x = scale.position(goal.ratio)
                let color = goal.check.verdict == .met ? Self.metColor : Self.missedColor
                doc.line(x1: x, y1: y - 1, x2: x, y2: y + Self.rowHeight + 1, stroke: color, width: 3)
            }
            y += Self.rowHeight
        }
        for row in group.rows {
            for goal in row.goals {
                y = goalLine(goal.check, &doc, x: Self.subjectX, y: y)
            }
        }
        return y + 4
    }

    private func goalLine(_ goal: GoalCheck, _ doc: inout SVGDocument, x: Double, y: Double) -> Double {
        let color: String
        switch goal.verdict {
        case .met: color = Self.metColor
        case .missed: color = Self.missedColor
        case .notMeasured: color = "#777"
        }
        let text = "goal \(goal.verdict.rawValue): \(goal.goal) — measured \(goal.measured)"
        doc.rect(x: x, y: y + 4, width: 8, height: 8, fill: color)
        doc.text(TextWidth.fit(text, size: 11, width: Self.width - x - 30), x: x + 14, y: y + 12, size: 11, fill: color)
        return y + Self.goalHeight
    }

    private func footer(_ doc: inout SVGDocument, unmarked: [GoalCheck], counts: [Figure], titles: [String: String], y: Double) -> Double {
        var y = y
        if !unmarked.isEmpty {
            doc.text("Goals that bound no single bar", x: 18, y: y + 14, size: 14, bold: true)
            y += 20
            for goal in unmarked { y = goalLine(goal, &doc, x: 26, y: y) }
            y += 8
        }
        if !counts.isEmpty {
            doc.text("Counts (not speeds, so not drawn)", x: 18, y: y + 14, size: 14, bold: true)
            y += 20
            var order: [String] = []
            var lines: [String: [String]] = [:]
            for f in counts {
                let id = (titles[f.workload] ?? f.workload) + ", " + f.scenario + " — " + f.metric
                if lines[id] == nil { order.append(id) }
                let value = f.summary.map { s in
                    s.min == s.max
                        ? FigureTable.format(s.median, f.unit) : "median \(FigureTable.format(s.median, f.unit)), max \(FigureTable.format(s.max, f.unit))"
                }
                lines[id, default: []].append("\(f.subject) \(value ?? "not measured")")
            }
            for id in order {
                let text = id + ": " + lines[id]!.joined(separator: "; ")
                doc.text(TextWidth.fit(text, size: 11, width: Self.width - 40), x: 26, y: y + 12, size: 11, fill: "#333")
                y += Self.noteHeight
            }
            y += 8
        }
        if !report.failures.isEmpty {
            doc.text("Failed", x: 18, y: y + 14, size: 14, bold: true, fill: Self.missedColor)
            y += 20
            for failure in report.failures {
                doc.text(TextWidth.fit(failure, size: 11, width: Self.width - 40), x: 26, y: y + 12, size: 11, fill: Self.missedColor)
                y += Self.noteHeight
            }
        }
        return y
    }

    // MARK: - Layout

    /// The plot's height: what `draw` will use for every header, group, row and goal line.
    private static func height(of groups: [ChartGroup]) -> Double {
        var height = 0.0
        var lastWorkload = ""
        for group in groups {
            if group.workload != lastWorkload {
                height += headerHeight
                lastWorkload = group.workload
            }
            height += groupHeight + Double(group.rows.count) * rowHeight + 4
            height += Double(group.rows.reduce(0) { $0 + $1.goals.count }) * goalHeight
        }
        return height
    }

    /// One axis for every group: from a round number at or below the fastest run (1×, or below when a
    /// run beat the fastest median) to one above the slowest; log₁₀ when the slowest is over 10×.
    static func scale(for groups: [ChartGroup]) -> ChartScale {
        var values: [Double] = [1]
        for g in groups {
            for r in g.rows {
                values += [r.ratio, r.low, r.high].compactMap { $0 }
                values += r.goals.map(\.ratio)
            }
        }
        values = values.filter { $0.isFinite && $0 > 0 }
        let low = values.min() ?? 1
        let high = values.max() ?? 1
        if high / low > 10 {
            return ChartScale(low: roundDown(low * 0.95), high: roundUp(high * 1.05), start: plotStart, end: plotEnd, logarithmic: true)
        }
        let step = ChartScale.niceStep(high * 1.05 / 6)
        return ChartScale(low: 0, high: (high * 1.05 / step).rounded(.up) * step, start: plotStart, end: plotEnd, logarithmic: false)
    }

    /// The largest of 1, 2, 5 × 10ⁿ at most `x`.
    private static func roundDown(_ x: Double) -> Double {
        let magnitude = pow(10, floor(log10(x)))
        for m in [5.0, 2.0, 1.0] where m * magnitude <= x * 1.0001 { return m * magnitude }
        return magnitude
    }

    /// The smallest of 1, 2, 5 × 10ⁿ at least `x`.
    private static func roundUp(_ x: Double) -> Double { ChartScale.niceStep(x) }

    /// The ticks that get a label: powers of ten (and every linear tick) first, then each 2 and 5 whose
    /// label keeps 8 pixels clear of the labels already placed.
    private static func labeled(_ scale: ChartScale) -> [Double] {
        let ticks = scale.ticks(spacing: tickSpacing)
        func isPower(_ t: Double) -> Bool { !scale.logarithmic || abs(log10(t) - log10(t).rounded()) < 1e-9 }
        func extent(_ t: Double) -> ClosedRange<Double> {
            let half = TextWidth.of(tickLabel(t), size: 11) / 2 + 4
            return (scale.position(t) - half)...(scale.position(t) + half)
        }
        var placed = ticks.filter(isPower)
        for t in ticks where !isPower(t) && !placed.contains(where: { extent($0).overlaps(extent(t)) }) { placed.append(t) }
        return placed.sorted()
    }

    static func tickLabel(_ t: Double) -> String {
        if t >= 1 && t == t.rounded() { return grouped(Int(t)) + "×" }
        return String(format: "%g×", t)
    }
}
