import Foundation

/// What every workload gets: the mode, a scratch directory, populated stores, and a progress log.
final class BenchContext {
    /// `--quick`: fewer sizes, runs and operations; a smoke check, not a measurement.
    let quick: Bool
    /// How many runs each figure is the median of (workloads may use fewer for their largest sizes, and say so).
    let runs: Int
    let scratch: ScratchDirectory
    let fixtures: Fixtures

    init(quick: Bool) throws {
        self.quick = quick
        runs = quick ? 3 : 7
        scratch = try ScratchDirectory()
        fixtures = Fixtures(scratch: scratch)
    }

    /// Picks the quick or the full value of a setting.
    func pick<T>(quick q: T, full: T) -> T { quick ? q : full }

    /// Writes a progress line to standard error (standard output carries the table or the JSON).
    func progress(_ line: String) {
        FileHandle.standardError.write(Data(("bench: " + line + "\n").utf8))
    }

    /// Every system (or variant), starting at a different one in each run, so none is always first after a pause.
    func rotated<Item>(_ kinds: [Item], run: Int) -> [Item] {
        guard !kinds.isEmpty else { return [] }
        let shift = run % kinds.count
        return Array(kinds[shift...] + kinds[..<shift])
    }
}

/// Formats counts as the table shows them: `1,000`, `100,000`.
func grouped(_ n: Int) -> String {
    let digits = Array(String(n))
    var out = ""
    for (i, d) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(d)
    }
    return out
}
