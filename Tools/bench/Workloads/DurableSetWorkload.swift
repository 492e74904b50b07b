import SplitMix

/// Workload 2: durable single-key sets, each its own commit, of random existing keys with new values.
/// Concord and raw LMDB fsync every commit (LMDB's default sync), SQLite runs `synchronous=FULL`,
/// UserDefaults calls `synchronize()` after each `set`.
enum DurableSetWorkload: Workload {
    static let name = "durable-set"
    static let title = "2 durable single-key set"
    static let summary = "one key per commit, durable on return, at 1,000, 10,000 and 100,000 keys"

    static let systems = SubjectKind.allCases

    static func sizes(_ context: BenchContext) -> [Int] { context.pick(quick: [1_000], full: [1_000, 10_000, 100_000]) }

    static func scenario(_ size: Int) -> String { "\(grouped(size)) keys" }

    /// Sets per run. `UserDefaults.synchronize()` rewrites the whole property list, so it gets
    /// fewer sets per run as the store grows (its figure is still a rate per set).
    static func operations(_ kind: SubjectKind, size: Int, _ context: BenchContext) -> Int {
        guard kind == .userDefaults else { return context.pick(quick: 20, full: 200) }
        if size <= 1_000 { return context.pick(quick: 10, full: 50) }
        return size <= 10_000 ? context.pick(quick: 3, full: 10) : 3
    }

    static func run(_ context: BenchContext) throws -> [Figure] {
        var figures: [Figure] = []
        for size in sizes(context) {
            context.progress("\(name): \(scenario(size)), \(context.runs) runs")
            var samples: [SubjectKind: [Double]] = [:]
            for run in 0..<context.runs {
                for kind in context.rotated(systems, run: run) {
                    let subject = try context.fixtures.subject(kind, size: size, progress: context.progress)
                    let ops = operations(kind, size: size, context)
                    var rng = SeededRandom(seed: UInt64(size + run * 7919))
                    let items = (0..<ops).map { _ in
                        let i = Int(rng.next() % UInt64(size))
                        return (key: Dataset.key(i), value: Dataset.value(i, generation: run + 1))
                    }
                    let elapsed = try BenchClock.measure {
                        for (key, value) in items { try subject.setDurably(key, value) }
                    }
                    samples[kind, default: []].append(Double(ops) / (Double(elapsed) / 1e9))
                }
            }
            for kind in systems {
                figures.append(
                    Figure(
                        workload: name, scenario: scenario(size), subject: kind.displayName,
                        metric: "sets", unit: .operationsPerSecond, samples: samples[kind] ?? []))
            }
        }
        return figures
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        var goals: [GoalCheck] = []
        for size in sizes(context) {
            let s = scenario(size)
            let concord = figures.find(name, s, .concord, metric: "sets")
            goals.append(
                .bound(
                    "durable set (\(s)) at least 0.9× raw LMDB's durable commit rate",
                    value: Ratio.speedup(concord, against: figures.find(name, s, .lmdb, metric: "sets")),
                    limit: 0.9, atLeast: true, mark: .faster(concord, than: figures.find(name, s, .lmdb, metric: "sets"), by: 0.9)
                ) { "\(Ratio.format($0)) raw LMDB's rate" })
            goals.append(
                .bound(
                    "durable set (\(s)) at least SQLite's rate (WAL, synchronous=FULL)",
                    value: Ratio.speedup(concord, against: figures.find(name, s, .sqlite, metric: "sets")),
                    limit: 1, atLeast: true, mark: .faster(concord, than: figures.find(name, s, .sqlite, metric: "sets"), by: 1)
                ) { "\(Ratio.format($0)) SQLite's rate" })
        }
        let s = scenario(10_000)
        goals.append(
            .bound(
                "durable set (\(s)) at least 10× UserDefaults set+synchronize()",
                value: Ratio.speedup(
                    figures.find(name, s, .concord, metric: "sets"),
                    against: figures.find(name, s, .userDefaults, metric: "sets")),
                limit: 10, atLeast: true,
                mark: .faster(
                    figures.find(name, s, .concord, metric: "sets"), than: figures.find(name, s, .userDefaults, metric: "sets"), by: 10)
            ) { "\(Ratio.format($0)) UserDefaults' rate" })
        return goals
    }
}
