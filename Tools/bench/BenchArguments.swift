/// The command line: `bench [--quick] [--json] [--only NAME]... [--svg FILE] [--save FILE] [--report FILE]`.
struct BenchArguments {
    var quick = false
    var json = false
    /// Workload names to run; empty means all.
    var only: [String] = []
    var showHelp = false
    /// Where to write the chart (`--svg`), as well as printing the table or JSON.
    var svg: String?
    /// Where to write the JSON report (`--save`), as well as printing the table or JSON.
    var save: String?
    /// A saved JSON report to print and draw instead of measuring (`--report`).
    var report: String?

    /// A wrong command line: the message, and the exit status 2.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> BenchArguments {
        var parsed = BenchArguments()
        var index = 0
        while index < arguments.count {
            let arg = arguments[index]
            index += 1
            switch arg {
            case "-h", "--help": parsed.showHelp = true
            case "--quick": parsed.quick = true
            case "--json": parsed.json = true
            case "--only":
                guard index < arguments.count else { throw UsageError(description: "--only needs a workload name (one of: \(names))") }
                try parsed.addOnly(arguments[index])
                index += 1
            case "--svg", "--save", "--report":
                guard index < arguments.count, !arguments[index].isEmpty else { throw UsageError(description: "\(arg) needs a file name") }
                try parsed.setFile(arg, arguments[index])
                index += 1
            default:
                if arg.hasPrefix("--only=") {
                    try parsed.addOnly(String(arg.dropFirst("--only=".count)))
                } else if let option = ["--svg", "--save", "--report"].first(where: { arg.hasPrefix($0 + "=") }) {
                    let file = String(arg.dropFirst(option.count + 1))
                    guard !file.isEmpty else { throw UsageError(description: "\(option) needs a file name") }
                    try parsed.setFile(option, file)
                } else if arg.hasPrefix("-") {
                    throw UsageError(description: "unknown option '\(arg)' (see bench --help)")
                } else {
                    throw UsageError(description: "unexpected argument '\(arg)' (see bench --help)")
                }
            }
        }
        if parsed.report != nil && (parsed.quick || !parsed.only.isEmpty) {
            throw UsageError(description: "--report draws a saved run; --quick and --only choose what to measure, so they do not go with it")
        }
        return parsed
    }

    private mutating func setFile(_ option: String, _ file: String) throws(UsageError) {
        switch option {
        case "--svg":
            guard svg == nil else { throw UsageError(description: "--svg given twice") }
            svg = file
        case "--save":
            guard save == nil else { throw UsageError(description: "--save given twice") }
            save = file
        default:
            guard report == nil else { throw UsageError(description: "--report given twice") }
            report = file
        }
    }

    private mutating func addOnly(_ value: String) throws(UsageError) {
        for name in value.split(separator: ",").map(String.init) {
            guard WorkloadRegistry.named(name) != nil else {
                throw UsageError(description: "unknown workload '\(name)' for --only (one of: \(Self.names))")
            }
            if !only.contains(name) { only.append(name) }
        }
    }

    private static var names: String { WorkloadRegistry.names.joined(separator: ", ") }

    static var help: String {
        var text = """
            Usage: bench [--quick] [--json] [--only NAME]... [--svg FILE] [--save FILE]
                   bench --report FILE [--json] [--svg FILE]

            Measures Concord side by side with raw LMDB (its C API), Foundation's UserDefaults and
            SQLite (WAL, synchronous=FULL), in one process and run, and prints a table: each figure is
            the median over repeated runs with its min and max, and how Concord compares. Build it in
            release mode: swift build -c release --product bench

            Options:
              --quick               Fewer sizes, runs and operations: a smoke check in under a minute.
              --json                Print every figure (and every run's sample) as JSON instead of the table.
              --only NAME           Run only this workload (repeat, or separate names with commas).
              --svg FILE            Also draw the figures as an SVG chart in FILE: per scenario, every system's
                                    median as times slower than the fastest, the min–max over runs as a
                                    whisker, each goal as a line (green met, red missed).
              --save FILE           Also write the JSON report (what --json prints) to FILE.
              --report FILE         Measure nothing: print (and with --svg, draw) a report saved by --save
                                    or --json.
              -h, --help            Show this help.

            Workloads:

            """
        for w in WorkloadRegistry.all {
            text += "  " + w.name.padding(toLength: 22, withPad: " ", startingAt: 0) + w.summary + "\n"
        }
        text += "\nExit status: 0 done, 1 a measurement failed, 2 usage error, 3 the --report file cannot be read or is not"
        text += " a bench report, 4 the --svg or --save file cannot be written."
        return text
    }
}
