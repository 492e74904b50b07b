/// Workload 3: many keys set in one commit, into a new empty store each run
/// (Concord's `suite.batch`, one LMDB write transaction, one SQLite transaction,
/// UserDefaults' `set` for each key then one `synchronize()`).
enum BatchedSetWorkload: Workload {
    static let name = "batched-set"
    static let title = "3 batched set"
    static let summary = "all keys of a new store in one commit, at 1,000, 100,000 and 1,000,000 keys"

    static let systems = SubjectKind.allCases

    static func sizes(_ context: BenchContext) -> [Int] { context.pick(quick: [1_000], full: [1_000, 100_000, 1_000_000]) }

    static func scenario(_ size: Int) -> String { "\(grouped(size)) keys in one commit" }

    /// Why a system is left out at a size, if it is.
    static func skipReason(_ kind: SubjectKind, size: Int) -> String? {
        guard kind == .userDefaults, size > 1_000 else { return nil }
        return "UserDefaults.set copies the whole domain on Linux (O(keys) per call), so this many sets take minutes"
    }

    static func run(_ context: BenchContext) throws -> [Figure] {
        var figures: [Figure] = []
        for size in sizes(context) {
            let runs = size >= 1_000_000 ? Swift.min(context.runs, 3) : context.runs
            context.progress("\(name): \(scenario(size)), \(runs) runs")
            let items = (0..<size).map { (key: Dataset.key($0), value: Dataset.value($0)) }
            var samples: [SubjectKind: [Double]] = [:]
            for run in 0..<runs {
                for kind in context.rotated(systems, run: run) where skipReason(kind, size: size) == nil {
                    let dir = try context.scratch.makeDirectory("batch-\(kind.rawValue)")
                    defer { context.scratch.remove(dir) }
                    let elapsed: UInt64 = try {
                        let subject = try kind.open(directory: dir)
                        return try BenchClock.measure { try subject.setBatch(items[...]) }
                    }()
                    samples[kind, default: []].append(Double(size) / (Double(elapsed) / 1e9))
                }
            }
            for kind in systems {
                if let reason = skipReason(kind, size: size) {
                    figures.append(.skipped(workload: name, scenario: scenario(size), subject: kind.displayName,
                                            metric: "keys", unit: .keysPerSecond, because: reason))
                } else {
                    figures.append(Figure(workload: name, scenario: scenario(size), subject: kind.displayName,
                                          metric: "keys", unit: .keysPerSecond, samples: samples[kind] ?? []))
                }
            }
        }
        return figures
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        sizes(context).map { size in
            let s = scenario(size)
            return .bound("batched set (\(s)) at least 0.5× raw LMDB's batched put rate",
                          value: Ratio.speedup(figures.find(name, s, .concord, metric: "keys"),
                                               against: figures.find(name, s, .lmdb, metric: "keys")),
                          limit: 0.5, atLeast: true) { "\(Ratio.format($0)) raw LMDB's rate" }
        }
    }
}
