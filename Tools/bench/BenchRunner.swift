import Foundation

/// Runs the chosen workloads, then prints the table (or the JSON) and the goals.
struct BenchRunner {
    let options: BenchArguments

    init(_ options: BenchArguments) { self.options = options }

    /// Exit statuses beyond 0 (done), 1 (a workload failed) and 2 (usage).
    enum Status {
        /// The `--report` file cannot be read or is not a bench report.
        static let badReport: Int32 = 3
        /// The `--svg` or `--save` file cannot be written.
        static let cannotWrite: Int32 = 4
    }

    /// Returns the exit status: 0 when every workload ran, 1 when one failed, 3 or 4 (see `Status`).
    func run() -> Int32 {
        if let path = options.report {
            let report: BenchReport
            do { report = try BenchReport.load(path) } catch {
                fail("\(error)")
                return Status.badReport
            }
            return publish(report) ?? (report.failures.isEmpty ? 0 : 1)
        }
        // A chart or JSON file that cannot be written is found before minutes of measuring, not after.
        for path in [options.svg, options.save].compactMap({ $0 }) {
            if let problem = Self.unwritable(path) {
                fail(problem)
                return Status.cannotWrite
            }
        }
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
        return publish(report) ?? (failures.isEmpty ? 0 : 1)
    }

    /// Prints the table (or JSON) and writes the `--save` and `--svg` files; returns an exit status
    /// when a file cannot be written.
    private func publish(_ report: BenchReport) -> Int32? {
        print(options.json ? report.json() : report.table())
        do {
            if let path = options.save { try Data((report.json() + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic) }
        } catch {
            fail("cannot write the JSON report to \(options.save!): \(error.localizedDescription)")
            return Status.cannotWrite
        }
        do {
            if let path = options.svg { try BenchChart(report: report).svg().write(to: path) }
        } catch {
            fail("cannot write the chart to \(options.svg!): \(error.localizedDescription)")
            return Status.cannotWrite
        }
        return nil
    }

    /// Why a file cannot be written at `path` (its directory missing or not writable), or `nil`.
    private static func unwritable(_ path: String) -> String? {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return "cannot write \(path): the directory \(directory) does not exist"
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "cannot write \(path): it is a directory"
        }
        guard FileManager.default.isWritableFile(atPath: directory) else { return "cannot write \(path): \(directory) is not writable" }
        return nil
    }

    private func fail(_ message: String) {
        FileHandle.standardError.write(Data("bench: \(message)\n".utf8))
    }
}
