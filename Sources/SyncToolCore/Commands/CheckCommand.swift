import Concord

/// `sync-tool check DIR`
struct CheckCommand: Command {
    static let spec = CommandSpec(
        name: "check", abstract: "Verify a replica; exit 4 when it is damaged.",
        positionals: [.init(name: "DIR", help: "The replica directory.")])

    let dir: String

    init(_ a: ParsedArguments) throws { dir = a.positionals[0] }

    func run(_ io: CommandIO) throws -> ExitCode {
        let report = try Arguments.openStore(dir).integrityReport()
        guard report.isSound else {
            for p in report.problems { io.err("damaged: \(p)") }
            return .storeError
        }
        io.out("ok: \(report.recordsChecked) records, \(report.journalEntriesChecked) journal entries")
        return .ok
    }
}
