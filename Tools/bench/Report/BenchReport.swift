import Foundation

/// Everything one run of the benchmark measured, printable as a table or as JSON.
struct BenchReport: Codable {
    struct WorkloadName: Codable {
        let name: String
        let title: String
    }

    let machine: MachineDescription
    let quick: Bool
    /// Runs per figure unless the figure says otherwise (its `runs`).
    let defaultRuns: Int
    /// Wall time of the whole benchmark.
    let seconds: Double
    let workloads: [WorkloadName]
    let figures: [Figure]
    let goals: [GoalCheck]
    let failures: [String]

    /// A problem reading a saved report: which file, and what is wrong with it.
    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads a report saved by `--save` or printed by `--json`.
    static func load(_ path: String) throws(LoadError) -> BenchReport {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw LoadError(description: "cannot read the report \(path): \(error.localizedDescription)")
        }
        do { return try JSONDecoder().decode(BenchReport.self, from: data) } catch let DecodingError.keyNotFound(key, context) {
            let at = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            throw LoadError(description: "\(path) is not a bench report (as --save or --json writes): it has no '\(at)'")
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw LoadError(description: "\(path) is not a bench report (as --save or --json writes): it is not JSON")
        } catch {
            throw LoadError(description: "\(path) is not a bench report (as --save or --json writes): \(error)")
        }
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    func table() -> String {
        var out = "Concord bench, \(machine.date): \(machine.cores) cores (\(machine.cpu)), \(machine.memoryGiB) GiB, \(machine.kernel); "
        out += "load average \(machine.loadAverage) at the end; \(quick ? "--quick (a smoke check, not a measurement)" : "full run"), "
        out += String(format: "%.0f s.\n", seconds)
        out += "Each figure is the median over `runs` runs, with the min and max. \"Concord vs it\": how many times faster Concord is "
        out += "than that system (its time ÷ Concord's; for rates, Concord's ÷ its); below 1× Concord is slower.\n\n"
        out += FigureTable(figures: figures, titles: Dictionary(uniqueKeysWithValues: workloads.map { ($0.name, $0.title) })).render()
        if !goals.isEmpty {
            var rows = [["goal", "measured", "verdict"]]
            for g in goals { rows.append([g.goal, g.measured, g.verdict.rawValue]) }
            out += "\nGoals (ratios of this run's medians):\n\n" + MarkdownTable.render(rows)
        }
        if !failures.isEmpty {
            out += "\nFailed:\n" + failures.map { "- " + $0 }.joined(separator: "\n") + "\n"
        }
        return out
    }
}

/// The figures as rows: a workload's scenarios, each system's median, spread, runs and Concord's ratio.
struct FigureTable {
    let figures: [Figure]
    let titles: [String: String]

    func render() -> String {
        var rows = [["workload", "scenario", "metric", "system", "median", "min – max", "runs", "Concord vs it"]]
        var notes: [String] = []
        var lastGroup = ""
        for figure in Self.inGroups(figures) {
            let group = figure.workload + "|" + figure.scenario + "|" + figure.metric
            let concord = figures.first {
                $0.workload == figure.workload && $0.scenario == figure.scenario && $0.metric == figure.metric
                    && $0.subject.hasPrefix(SubjectKind.concord.displayName)
            }
            var ratio = ""
            if let concord, concord.subject != figure.subject, let speed = figure.speedOfConcord(concord) { ratio = Ratio.format(speed) }
            var median = ""
            var spread = ""
            var runs = ""
            if let s = figure.summary {
                median = Self.format(s.median, figure.unit)
                spread = Self.format(s.min, figure.unit) + " – " + Self.format(s.max, figure.unit)
                runs = String(s.runs)
            } else {
                median = "—"
            }
            if let note = figure.note {
                if !notes.contains(note) { notes.append(note) }
                median += " [\(notes.firstIndex(of: note)! + 1)]"
            }
            let first = group != lastGroup
            rows.append([
                first ? (titles[figure.workload] ?? figure.workload) : "", first ? figure.scenario : "",
                first ? figure.metric : "", figure.subject, median, spread, runs, ratio
            ])
            lastGroup = group
        }
        var out = MarkdownTable.render(rows)
        if !notes.isEmpty {
            out += "\n" + notes.enumerated().map { "[\($0.offset + 1)] \($0.element)" }.joined(separator: "\n") + "\n"
        }
        return out
    }

    /// The figures with each (workload, scenario, metric) together, groups in order of first appearance.
    static func inGroups(_ figures: [Figure]) -> [Figure] {
        var order: [String] = []
        var groups: [String: [Figure]] = [:]
        for f in figures {
            let id = f.workload + "|" + f.scenario + "|" + f.metric
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append(f)
        }
        return order.flatMap { groups[$0]! }
    }

    /// A value in its unit, with about three significant digits: `412 ns`, `6.10 µs`, `1,234 ops/s`.
    static func format(_ value: Double, _ unit: Figure.Unit) -> String {
        switch unit {
        case .nanosecondsPerOperation: return duration(nanoseconds: value)
        case .microseconds: return duration(nanoseconds: value * 1_000)
        case .operationsPerSecond, .keysPerSecond: return rate(value) + " " + unit.rawValue
        case .count: return grouped(Int(value.rounded()))
        }
    }

    static func duration(nanoseconds ns: Double) -> String {
        let magnitude = abs(ns)
        if magnitude < 1_000 { return String(format: "%.0f ns", ns) }
        if magnitude < 1_000_000 { return significant(ns / 1_000) + " µs" }
        if magnitude < 1_000_000_000 { return significant(ns / 1_000_000) + " ms" }
        return significant(ns / 1_000_000_000) + " s"
    }

    static func rate(_ value: Double) -> String {
        value >= 100 ? grouped(Int(value.rounded())) : significant(value)
    }

    private static func significant(_ x: Double) -> String {
        let magnitude = abs(x)
        return String(format: magnitude >= 100 ? "%.0f" : magnitude >= 10 ? "%.1f" : "%.2f", x)
    }
}

/// A table whose columns line up in a terminal and which is also valid Markdown.
enum MarkdownTable {
    static func render(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        var widths = header.map { $0.count }
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            "| "
                + cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        var out = line(header) + "\n"
        out += "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|\n"
        for row in rows.dropFirst() { out += line(row) + "\n" }
        return out
    }
}
