/// Workload 1: typed point reads of random keys, String and Int, each read on its own
/// (Concord's `suite.get`, raw LMDB's begin-get-abort, a prepared SQLite `SELECT`,
/// `UserDefaults.string(forKey:)` / `integer(forKey:)`).
enum PointReadWorkload: Workload {
    static let name = "point-read"
    static let title = "1 typed point read"
    static let summary = "typed get (String and Int) of random keys, at 1,000, 100,000 and 1,000,000 keys"

    static let systems = SubjectKind.allCases

    static func sizes(_ context: BenchContext) -> [Int] { context.pick(quick: [1_000], full: [1_000, 100_000, 1_000_000]) }

    enum ValueType: String, CaseIterable { case string = "String", int = "Int" }

    static func scenario(_ type: ValueType, _ size: Int) -> String { "\(type.rawValue), \(grouped(size)) keys" }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let reads = context.pick(quick: 5_000, full: 20_000)
        var figures: [Figure] = []
        for size in sizes(context) {
            for kind in systems { _ = try context.fixtures.subject(kind, size: size, progress: context.progress) }
            for type in ValueType.allCases {
                context.progress("\(name): \(scenario(type, size)), \(context.runs) runs of \(grouped(reads)) reads")
                var samples: [SubjectKind: [Double]] = [:]
                for run in 0..<context.runs {
                    let keys = Dataset.randomKeys(count: reads, size: size, odd: type == .int, seed: UInt64(size * 31 + run))
                    for kind in context.rotated(systems, run: run) {
                        let subject = try context.fixtures.subject(kind, size: size, progress: context.progress)
                        try readAll(subject, keys[..<Swift.min(1_000, keys.count)], type) // warm up
                        let elapsed = try BenchClock.measure { try readAll(subject, keys[...], type) }
                        samples[kind, default: []].append(Double(elapsed) / Double(reads))
                    }
                }
                for kind in systems {
                    figures.append(
                        Figure(
                            workload: name, scenario: scenario(type, size), subject: kind.displayName,
                            metric: "per read", unit: .nanosecondsPerOperation, samples: samples[kind] ?? []))
                }
            }
        }
        return figures
    }

    /// Reads every key; a missing value is a failure (the fixture holds every key).
    private static func readAll(_ subject: any Subject, _ keys: ArraySlice<String>, _ type: ValueType) throws {
        switch type {
        case .string:
            for key in keys { guard try subject.readString(key) != nil else { throw BenchError("\(key) is missing") } }
        case .int:
            for key in keys { guard try subject.readInt(key) != nil else { throw BenchError("\(key) is missing") } }
        }
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        var goals: [GoalCheck] = []
        for size in sizes(context) {
            for type in ValueType.allCases {
                let s = scenario(type, size)
                let concord = figures.find(name, s, .concord, metric: "per read")
                goals.append(
                    .bound(
                        "typed get (\(s)) at most 2× raw LMDB's get with its own read txn",
                        value: Ratio.slowdown(concord, against: figures.find(name, s, .lmdb, metric: "per read")),
                        limit: 2, mark: .slower(concord, than: figures.find(name, s, .lmdb, metric: "per read"), by: 2)
                    ) { "\(Ratio.format($0)) raw LMDB's time" })
                goals.append(
                    .bound(
                        "typed get (\(s)) at least 2× faster than UserDefaults",
                        value: Ratio.speedup(concord, against: figures.find(name, s, .userDefaults, metric: "per read")),
                        limit: 2, atLeast: true, mark: .faster(concord, than: figures.find(name, s, .userDefaults, metric: "per read"), by: 2)
                    ) { "\(Ratio.format($0)) faster" })
            }
        }
        return goals
    }
}
