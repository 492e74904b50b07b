import ChildProcesses

/// Workload 4: what an extension or widget pays at launch: open the store and read one key.
/// Concord keeps one environment per directory per process, so every measurement runs in a fresh
/// child process (the bench binary in the role `open-read`), for the baselines too. The child times
/// itself from just before the open to just after the read; process start-up is not counted.
/// The store's files are in the page cache (the parent just wrote them): this is a warm open.
enum OpenAndReadWorkload: Workload {
    static let name = "open-read"
    static let title = "4 open + first read"
    static let summary = "open the store in a fresh process and read one String key, at 1,000 and 1,000,000 keys"

    static let systems = SubjectKind.allCases

    static func sizes(_ context: BenchContext) -> [Int] { context.pick(quick: [1_000], full: [1_000, 1_000_000]) }

    static func scenario(_ size: Int) -> String { "\(grouped(size)) keys" }

    /// Runs per system: more than the default (a launch is cheap), except UserDefaults at a million
    /// keys, which parses the whole property list on open and gets the minimum of three.
    static func runs(_ kind: SubjectKind, size: Int, _ context: BenchContext) -> Int {
        if kind == .userDefaults && size >= 1_000_000 { return 3 }
        return context.pick(quick: 3, full: 11)
    }

    static func run(_ context: BenchContext) throws -> [Figure] {
        var figures: [Figure] = []
        for size in sizes(context) {
            let key = Dataset.key(size / 2 - (size / 2) % 2) // a String key in the middle
            var directories: [SubjectKind: String] = [:]
            for kind in systems { directories[kind] = try context.fixtures.directory(kind, size: size, progress: context.progress) }
            let most = systems.map { runs($0, size: size, context) }.max() ?? 0
            context.progress("\(name): \(scenario(size)), up to \(most) fresh processes per system")
            var samples: [SubjectKind: [Double]] = [:]
            for run in 0..<most {
                for kind in context.rotated(systems, run: run) where run < runs(kind, size: size, context) {
                    let child = try ChildProcess(role: "open-read", [kind.rawValue, directories[kind]!, key])
                    let nanoseconds = try child.expect("elapsed-ns")
                    try child.finish()
                    guard let ns = Double(nanoseconds) else { throw BenchError("open-read printed '\(nanoseconds)', not a number") }
                    samples[kind, default: []].append(ns / 1_000)
                }
            }
            for kind in systems {
                figures.append(
                    Figure(
                        workload: name, scenario: scenario(size), subject: kind.displayName,
                        metric: "open + read", unit: .microseconds, samples: samples[kind] ?? []))
            }
        }
        return figures
    }

    static func runChild(role: String, arguments: [String]) throws -> Int32? {
        guard role == "open-read" else { return nil }
        let usage = "open-read SYSTEM DIR KEY"
        let kind = try ChildRoles.kind(arguments, 0, usage)
        let directory = try ChildRoles.argument(arguments, 1, usage)
        let key = try ChildRoles.argument(arguments, 2, usage)
        let start = BenchClock.now()
        let subject = try kind.open(directory: directory)
        let value = try subject.readString(key)
        let elapsed = BenchClock.now() - start
        guard value != nil else { throw BenchError("\(key) is missing from \(directory)") }
        ParentLink.say("elapsed-ns \(elapsed)")
        return 0
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        var goals: [GoalCheck] = []
        let all = sizes(context)
        for size in all {
            let s = scenario(size)
            goals.append(
                .bound(
                    "open + first read (\(s)) at most 2× raw LMDB",
                    value: Ratio.slowdown(
                        figures.find(name, s, .concord, metric: "open + read"),
                        against: figures.find(name, s, .lmdb, metric: "open + read")),
                    limit: 2,
                    mark: .slower(
                        figures.find(name, s, .concord, metric: "open + read"), than: figures.find(name, s, .lmdb, metric: "open + read"), by: 2)
                ) { "\(Ratio.format($0)) raw LMDB's time" })
        }
        if let small = all.first, let large = all.last, small != large {
            let a = figures.find(name, scenario(small), .concord, metric: "open + read")?.summary?.median
            let b = figures.find(name, scenario(large), .concord, metric: "open + read")?.summary?.median
            let spread = a.flatMap { a in b.map { b in Swift.max(a, b) / Swift.min(a, b) } }
            goals.append(
                .bound(
                    "open + first read the same at \(grouped(small)) and \(grouped(large)) keys (within 1.5×)",
                    value: spread, limit: 1.5
                ) { "\(Ratio.format($0)) apart" })
        }
        return goals
    }
}
