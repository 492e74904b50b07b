import Concord
import Foundation

/// Workload 8: sync. Merging a batch of changes from another replica (one durable write transaction,
/// re-journaled, cursors updated) into an empty replica and into a large one, in changes per second;
/// what the gate every record from outside passes (`RecordGate`) costs of that, per change; and a
/// 100-change delta pulled into a large replica, in milliseconds including the durable commit.
/// The side-by-side baseline is an in-memory CRDT merge of the same number of map changes: Yjs's Rust
/// core through `pycrdt` (PyPI), run by the python `make bench` installs it for (`BENCH_PYTHON`; else python3 when it has pycrdt).
enum SyncMergeWorkload: Workload {
    static let name = "sync"
    static let title = "8 sync: merge and delta"
    static let summary = "merge 100,000 changes into an empty and a large replica; a 100-change delta into a large replica"

    static let concordName = SubjectKind.concord.displayName + " (durable)"
    static let crdtName = "pycrdt (Yjs, in memory)"

    static func changes(_ context: BenchContext) -> Int { context.pick(quick: 10_000, full: 100_000) }
    static func large(_ context: BenchContext) -> Int { context.pick(quick: 100_000, full: 1_000_000) }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let n = changes(context)
        let big = large(context)
        let runs = context.pick(quick: 1, full: 3)
        var figures: [Figure] = []

        // The source: n changes in its journal.
        let sourceDir = try context.scratch.makeDirectory("sync-source")
        let source = try Store(path: sourceDir)
        try fill(source, suite: "app", prefix: "s", count: n, context)

        // 1. Into an empty replica.
        context.progress("\(name): merging \(grouped(n)) changes into an empty replica, \(runs) runs")
        var intoEmpty: [Double] = []
        for _ in 0..<runs {
            let dir = try context.scratch.makeDirectory("sync-empty")
            intoEmpty.append(try mergeRate(from: source, into: try Store(path: dir), changes: n))
            context.scratch.remove(dir)
        }
        let emptyScenario = "\(grouped(n)) changes into an empty replica"
        figures.append(Figure(workload: name, scenario: emptyScenario, subject: concordName, metric: "merge", unit: .operationsPerSecond, samples: intoEmpty))
        figures.append(crdtFigure(scenario: emptyScenario, changes: n, runs: runs, context))
        figures += try gateFigures(source: source, scenario: emptyScenario, merges: intoEmpty, context)

        // 2. Into a large replica (its own keys, so every change is new there).
        context.progress("\(name): building a \(grouped(big))-key replica")
        let largeDir = try context.scratch.makeDirectory("sync-large")
        let largeStore = try Store(path: largeDir)
        try fill(largeStore, suite: "app", prefix: "l", count: big, context)
        context.progress("\(name): merging \(grouped(n)) changes into the \(grouped(big))-key replica, \(runs) runs")
        var intoLarge: [Double] = []
        for run in 0..<runs {
            // A fresh source each run, so every run merges n new changes.
            let dir = try context.scratch.makeDirectory("sync-source-\(run)")
            let fresh = try Store(path: dir)
            try fill(fresh, suite: "app", prefix: "r\(run)-", count: n, context)
            intoLarge.append(try mergeRate(from: fresh, into: largeStore, changes: n))
            context.scratch.remove(dir)
        }
        figures.append(
            Figure(
                workload: name, scenario: "\(grouped(n)) changes into a \(grouped(big))-key replica", subject: concordName,
                metric: "merge", unit: .operationsPerSecond, samples: intoLarge))

        // 3. A 100-change delta into the large replica: the writer changes 100 keys, then a pull.
        let deltas = context.pick(quick: 10, full: 30)
        context.progress("\(name): \(deltas) pulls of a 100-change delta into the large replica")
        let writerDir = try context.scratch.makeDirectory("sync-writer")
        let writer = try Store(path: writerDir)
        let writerSuite = try writer.suite("app")
        try writerSuite.set(0, forKey: "warm")
        _ = try Synchronizer().pull(from: writer, into: largeStore)
        var deltaMicros: [Double] = []
        for round in 0..<deltas {
            try writerSuite.batch { b in for k in 0..<100 { try b.set(round, forKey: "d\(k)") } }
            let started = BenchClock.now()
            let report = try Synchronizer().pull(from: writer, into: largeStore)
            let read = report.journalEntriesRead
            let elapsed = BenchClock.now() - started
            guard report.entries == 100, read <= 200 else {
                throw BenchError("a 100-change delta carried \(report.entries) entries and read \(read) journal entries")
            }
            deltaMicros.append(Double(elapsed) / 1e3)
        }
        figures.append(
            Figure(
                workload: name, scenario: "100-change delta into a \(grouped(big + n * runs))-key replica", subject: concordName,
                metric: "pull", unit: .microseconds, samples: deltaMicros))
        context.scratch.remove(largeDir)
        context.scratch.remove(sourceDir)
        context.scratch.remove(writerDir)
        return figures
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        let n = changes(context)
        let emptyScenario = "\(grouped(n)) changes into an empty replica"
        let concord = figures.find(name, emptyScenario, concordName, metric: "merge")
        let crdt = figures.find(name, emptyScenario, crdtName, metric: "merge")
        let deltaFigure = figures.figures.first { $0.workload == name && $0.metric == "pull" }
        let delta = deltaFigure?.summary?.median
        return [
            .bound(
                "merging \(grouped(n)) changes at least as fast as an in-memory CRDT merge (pycrdt)",
                value: Ratio.speedup(concord, against: crdt), limit: 1, atLeast: true, mark: .faster(concord, than: crdt, by: 1)
            ) { "\(Ratio.format($0)) pycrdt's rate" },
            .bound(
                "a 100-change delta into a large replica under 5 ms, durable commit included",
                value: delta.map { $0 / 1000 }, limit: 5, strictly: true, mark: .at(deltaFigure, 5_000)
            ) { String(format: "%.2f ms", $0) }
        ]
    }

    static let gateName = "the gate alone (RecordGate)"

    /// The gate's cost per change beside the whole merge's (both in ns per change, from the same run): the
    /// source's reader checking what it sends (values already decoded with the journal) and the target's
    /// check of the batch (values decoded), over the batch the merges pulled.
    private static func gateFigures(source: Store, scenario: String, merges: [Double], _ context: BenchContext) throws -> [Figure] {
        let batch = try DeltaReader.read(from: source, for: nil, alreadyMerged: .none).batch
        let gate = RecordGate(store: source)
        var perChange: [Double] = []
        for _ in 0..<context.pick(quick: 3, full: 7) {
            let started = BenchClock.now()
            for entry in batch.entries {
                if gate.refusal(suite: entry.suite, key: entry.key, seq: entry.seq, record: entry.record, decodingValues: false) != nil {
                    throw BenchError("the gate refused a sound change")
                }
            }
            try gate.check(batch)
            perChange.append(Double(BenchClock.now() - started) / Double(batch.entries.count))
        }
        return [
            Figure(
                workload: name, scenario: scenario, subject: concordName, metric: "per change", unit: .nanosecondsPerOperation,
                samples: merges.map { 1e9 / $0 }),
            Figure(workload: name, scenario: scenario, subject: gateName, metric: "per change", unit: .nanosecondsPerOperation, samples: perChange)
        ]
    }

    /// Pulls every change of `source` into `target` (durably) and returns changes merged per second.
    private static func mergeRate(from source: Store, into target: Store, changes n: Int) throws -> Double {
        let started = BenchClock.now()
        let report = try Synchronizer().pull(from: source, into: target)
        let elapsed = BenchClock.now() - started
        guard report.recordsChanged == n else { throw BenchError("merged \(report.recordsChanged) of \(n) changes") }
        return Double(n) / (Double(elapsed) / 1e9)
    }

    /// Writes `count` keys in batches of 10,000 (one commit each), relaxed only in how it is built.
    private static func fill(_ store: Store, suite name: String, prefix: String, count: Int, _ context: BenchContext) throws {
        let suite = try store.suite(name)
        var i = 0
        while i < count {
            let end = min(count, i + 10_000)
            try suite.batch { b in for k in i..<end { try b.set("value-\(k)", forKey: "\(prefix)\(k)") } }
            i = end
        }
    }

    /// pycrdt's merge of the same number of map changes, in one process per run; skipped with the reason
    /// when python3 or pycrdt is not there.
    private static func crdtFigure(scenario: String, changes: Int, runs: Int, _ context: BenchContext) -> Figure {
        let script = """
            import sys, time
            import pycrdt
            n = int(sys.argv[1])
            src = pycrdt.Doc()
            m = src.get("settings", type=pycrdt.Map)
            with src.transaction():
                for i in range(n):
                    m[f"s{i}"] = f"value-{i}"
            update = src.get_update()
            dst = pycrdt.Doc()
            dst.get("settings", type=pycrdt.Map)
            start = time.perf_counter()
            dst.apply_update(update)
            elapsed = time.perf_counter() - start
            assert len(dst.get("settings", type=pycrdt.Map)) == n
            print(n / elapsed)
            """
        // `make bench` installs pycrdt into a virtual environment of its own and names its python here.
        let python = ProcessInfo.processInfo.environment["BENCH_PYTHON"] ?? "python3"
        var samples: [Double] = []
        for _ in 0..<runs {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [python, "-c", script, String(changes)]
            let out = Pipe()
            let err = Pipe()
            p.standardOutput = out
            p.standardError = err
            do { try p.run() } catch {
                return .skipped(
                    workload: name, scenario: scenario, subject: crdtName, metric: "merge", unit: .operationsPerSecond, because: "\(python) is not available")
            }
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            guard p.terminationStatus == 0, let rate = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
                return .skipped(
                    workload: name, scenario: scenario, subject: crdtName, metric: "merge", unit: .operationsPerSecond,
                    because: "pycrdt is not installed for \(python) (make bench installs it)")
            }
            samples.append(rate)
        }
        return Figure(workload: name, scenario: scenario, subject: crdtName, metric: "merge", unit: .operationsPerSecond, samples: samples)
    }
}
