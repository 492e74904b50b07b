import Concord

/// What checking an expiry costs a read: typed gets of values that expire (in a day) against gets of
/// plain values of the same store, in the same run. A plain value's read only looks at its record's
/// flags; an expiring one's also reads the store's wall clock.
enum ExpiringReadWorkload: Workload {
    static let name = "expiring-read"
    static let title = "Reading values that expire"
    static let summary = "typed get (String) of values that expire vs plain values, in one store of 10,000 keys"

    static let keys = 10_000
    static let plain = "plain values"
    static let expiring = "values that expire"
    static let scenario = "String, 10,000 keys"

    static func run(_ context: BenchContext) throws -> [Figure] {
        let reads = context.pick(quick: 5_000, full: 50_000)
        var options = Store.Options()
        options.durability = .none // the reads are measured; filling the store need not wait for the disk
        let store = try Store(path: try context.scratch.makeDirectory("expiring-read") + "/store", options: options)
        let suite = try store.suite("bench")
        try suite.batch { b in for i in 0..<keys { try b.set("value-\(i)-settings", forKey: "plain-\(i)") } }
        for i in 0..<keys { try suite.set("value-\(i)-settings", forKey: "expiring-\(i)", expiresAfter: .seconds(86_400)) }
        context.progress("\(name): \(context.runs) runs of \(grouped(reads)) reads of each kind")
        let samples = try TypedGets.perGet(context, kinds: [plain, expiring], keys: keys, reads: reads, seed: 77) { kind in
            (suite, { (kind == plain ? "plain-" : "expiring-") + String($0) })
        }
        return [plain, expiring].map { kind in
            Figure(workload: name, scenario: scenario, subject: kind, metric: "per read", unit: .nanosecondsPerOperation, samples: samples[kind] ?? [])
        }
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        let expiringFigure = figures.find(name, scenario, expiring, metric: "per read")
        let plainFigure = figures.find(name, scenario, plain, metric: "per read")
        return [
            .bound(
                "typed get of a value that expires at most 1.5× a plain value's",
                value: Ratio.slowdown(expiringFigure, against: plainFigure), limit: 1.5,
                mark: .slower(expiringFigure, than: plainFigure, by: 1.5)
            ) { "\(Ratio.format($0)) a plain value's time" }
        ]
    }
}
