import Concord

/// `sync-tool delete DIR SUITE KEY`
struct DeleteCommand: Command {
    static let spec = CommandSpec(
        name: "delete", abstract: "Delete a key (a tombstone that syncs; exit 1 when it was not set).",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The suite name."), .init(name: "KEY", help: "The key.")])

    let dir, suite, key: String

    init(_ a: ParsedArguments) throws { (dir, suite, key) = (a.positionals[0], a.positionals[1], a.positionals[2]) }

    func run(_ io: CommandIO) throws -> ExitCode {
        let s = try Arguments.openStore(dir).suite(suite)
        guard try s.contains(key) else {
            io.err("sync-tool delete: key '\(printable(key))' is not set in suite '\(suite)'")
            return .notFound
        }
        try s.remove(key)
        return .ok
    }
}
