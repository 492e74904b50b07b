/// The command line: `bench [--quick] [--json] [--only NAME]...`.
struct BenchArguments {
    var quick = false
    var json = false
    /// Workload names to run; empty means all.
    var only: [String] = []
    var showHelp = false

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
            default:
                if arg.hasPrefix("--only=") {
                    try parsed.addOnly(String(arg.dropFirst("--only=".count)))
                } else if arg.hasPrefix("-") {
                    throw UsageError(description: "unknown option '\(arg)' (see bench --help)")
                } else {
                    throw UsageError(description: "unexpected argument '\(arg)' (see bench --help)")
                }
            }
        }
        return parsed
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
            Usage: bench [--quick] [--json] [--only NAME]...

            Measures Concord side by side with raw LMDB (its C API), Foundation's UserDefaults and
            SQLite (WAL, synchronous=FULL), in one process and run, and prints a table: each figure is
            the median over repeated runs with its min and max, and how Concord compares. Build it in
            release mode: swift build -c release --product bench

            Options:
              --quick               Fewer sizes, runs and operations: a smoke check in under a minute.
              --json                Print every figure (and every run's sample) as JSON instead of the table.
              --only NAME           Run only this workload (repeat, or separate names with commas).
              -h, --help            Show this help.

            Workloads:

            """
        for w in WorkloadRegistry.all {
            text += "  " + w.name.padding(toLength: 22, withPad: " ", startingAt: 0) + w.summary + "\n"
        }
        text += "\nExit status: 0 done, 1 a measurement failed, 2 usage error."
        return text
    }
}
