import Foundation

/// Runs the chosen workloads, then prints the table (or the JSON) and the goals.
struct BenchRunner {
    let options: BenchArguments

    init(_ options: BenchArguments) { self.options = options }

    /// Returns the exit status: 0 when every workload ran, 1 when one failed.
    func run() -> Int32 {
        let context: BenchContext
        do { context = try BenchContext(quick: options.quick) } catch {
            FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
            return 1
        }
        defer { context.scratch.removeAll() }
        let selected = WorkloadRegistry.all.filter { options.only.isEmpty || options.only.contains($0.name) }
        let started = BenchClock.now()
        var figures: [Figure] = []
        var failures: [String] = []
        for workload in selected {
            do {
                figures += try workload.run(context)
            } catch {
                let message = "\(workload.name) failed: \(error)"
                context.progress(message)
                failures.append(message)
            }
        }
        let book = FigureBook(figures: figures)
        let goals = selected.flatMap { $0.goals(book, context) }
        let report = BenchReport(
            machine: MachineDescription.current(), quick: options.quick, defaultRuns: context.runs,
            seconds: Double(BenchClock.now() - started) / 1e9,
            workloads: selected.map { .init(name: $0.name, title: $0.title) },
            figures: figures, goals: goals, failures: failures)
        if options.json {
            print(report.json())
        } else {
            print(report.table())
        }
        return failures.isEmpty ? 0 : 1
    }
}
