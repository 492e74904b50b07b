/// One measured figure: a metric of one system in one scenario of a workload, summarised over runs,
/// or a note saying why it was not measured.
struct Figure: Codable, Sendable {
    enum Unit: String, Codable, Sendable {
        case nanosecondsPerOperation = "ns/op"
        case operationsPerSecond = "ops/s"
        case keysPerSecond = "keys/s"
        case microseconds = "µs"
        case count

        /// Whether a larger number means faster (rates) rather than slower (times).
        var higherIsFaster: Bool { self == .operationsPerSecond || self == .keysPerSecond }
        /// Whether two systems' figures in this unit compare as speeds.
        var isSpeed: Bool { self != .count }
    }

    /// The workload's `--only` name.
    let workload: String
    /// What was measured, e.g. `String, 100,000 keys`.
    let scenario: String
    /// The system: `Concord` or a baseline's name.
    let subject: String
    /// Which number of the scenario, e.g. `per read`, `p99`, `lost writes`.
    let metric: String
    let unit: Unit
    /// `nil` when the figure was not measured (see `note`).
    let summary: Summary?
    let note: String?

    init(workload: String, scenario: String, subject: String, metric: String, unit: Unit, samples: [Double], note: String? = nil) {
        self.workload = workload
        self.scenario = scenario
        self.subject = subject
        self.metric = metric
        self.unit = unit
        self.summary = samples.isEmpty ? nil : Summary(samples)
        self.note = note
    }

    /// A figure that was not measured, and why.
    static func skipped(workload: String, scenario: String, subject: String, metric: String, unit: Unit, because reason: String) -> Figure {
        Figure(workload: workload, scenario: scenario, subject: subject, metric: metric, unit: unit, samples: [], note: "skipped: " + reason)
    }

    /// How many times faster Concord's `concord` figure is than this one (below 1: slower);
    /// `nil` when either was not measured or the unit is not a speed.
    func speedOfConcord(_ concord: Figure) -> Double? {
        guard unit.isSpeed, unit == concord.unit, let mine = summary?.median, let theirs = concord.summary?.median,
            mine > 0, theirs > 0
        else { return nil }
        return unit.higherIsFaster ? theirs / mine : mine / theirs
    }
}

/// Every figure of a run, looked up by what it measured.
struct FigureBook {
    let figures: [Figure]

    func find(_ workload: String, _ scenario: String, _ subject: SubjectKind, metric: String) -> Figure? {
        find(workload, scenario, subject.displayName, metric: metric)
    }

    func find(_ workload: String, _ scenario: String, _ subject: String, metric: String) -> Figure? {
        figures.first { $0.workload == workload && $0.scenario == scenario && $0.subject == subject && $0.metric == metric }
    }
}
