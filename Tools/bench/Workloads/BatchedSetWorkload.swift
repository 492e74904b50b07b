/// Workload 3: many keys set in one commit, into a new empty store each run
/// (Concord's `suite.batch`, one LMDB write transaction, one SQLite transaction,
/// UserDefaults' `set` for each key then one `synchronize()`).
/// One more row runs Concord with its default initial map (64 MiB), to show what map growth costs:
/// each growth aborts the write transaction and runs the whole batch again.
enum BatchedSetWorkload: Workload {
    static let name = "batched-set"
    static let title = "3 batched set"
    static let summary = "all keys of a new store in one commit, at 1,000, 100,000 and 1,000,000 keys"

    /// A system as this workload runs it.
    struct Contender: Sendable {
        let name: String
        let kind: SubjectKind
        let open: @Sendable (String) throws -> any Subject
    }

    static let defaultMapName = "Concord, default map"

    static let contenders: [Contender] =
        SubjectKind.allCases.map { kind in
            Contender(name: kind.displayName, kind: kind, open: { try kind.open(directory: $0) })
        } + [Contender(name: defaultMapName, kind: .concord, open: { try ConcordSubject(directory: $0, defaultMap: true) })]

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
            var samples: [String: [Double]] = [:]
            for run in 0..<runs {
                let order = run % contenders.count
                for contender in contenders[order...] + contenders[..<order] where skipReason(contender.kind, size: size) == nil {
                    let dir = try context.scratch.makeDirectory("batch-\(contender.kind.rawValue)")
                    defer { context.scratch.remove(dir) }
                    let elapsed: UInt64 = try {
                        let subject = try contender.open(dir)
                        return try BenchClock.measure { try subject.setBatch(items[...]) }
                    }()
                    samples[contender.name, default: []].append(Double(size) / (Double(elapsed) / 1e9))
                }
            }
            for contender in contenders {
                if let reason = skipReason(contender.kind, size: size) {
                    figures.append(
                        .skipped(
                            workload: name, scenario: scenario(size), subject: contender.name,
                            metric: "keys", unit: .keysPerSecond, because: reason))
                } else {
                    figures.append(
                        Figure(
                            workload: name, scenario: scenario(size), subject: contender.name,
                            metric: "keys", unit: .keysPerSecond, samples: samples[contender.name] ?? []))
                }
            }
        }
        return figures
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        sizes(context).flatMap { size -> [GoalCheck] in
            let s = scenario(size)
            let concord = figures.find(name, s, .concord, metric: "keys")
            var goals: [GoalCheck] = [
                .bound(
                    "batched set (\(s)) at least 0.5× raw LMDB's batched put rate",
                    value: Ratio.speedup(concord, against: figures.find(name, s, .lmdb, metric: "keys")),
                    limit: 0.5, atLeast: true, mark: .faster(concord, than: figures.find(name, s, .lmdb, metric: "keys"), by: 0.5)
                ) { "\(Ratio.format($0)) raw LMDB's rate" }
            ]
            if size >= 100_000 {
                goals.append(
                    .bound(
                        "batched set (\(s)) at least SQLite's rate",
                        value: Ratio.speedup(concord, against: figures.find(name, s, .sqlite, metric: "keys")),
                        limit: 1, atLeast: true, mark: .faster(concord, than: figures.find(name, s, .sqlite, metric: "keys"), by: 1)
                    ) { "\(Ratio.format($0)) SQLite's rate" })
            }
            return goals
        }
    }
}
