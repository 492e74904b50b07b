import Concord

/// `sync-tool suites DIR`
struct SuitesCommand: Command {
    static let spec = CommandSpec(
        name: "suites", abstract: "List the suites of a replica, one per line.",
        positionals: [.init(name: "DIR", help: "The replica directory.")])

    let dir: String

    init(_ a: ParsedArguments) throws { dir = a.positionals[0] }

    func run(_ io: CommandIO) throws -> ExitCode {
        for name in try Arguments.openStore(dir).suiteNames() { io.out(name) }
        return .ok
    }
}
