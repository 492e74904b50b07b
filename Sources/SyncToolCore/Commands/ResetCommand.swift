import Concord

/// `sync-tool reset DIR SUITE`
struct ResetCommand: Command {
    static let spec = CommandSpec(
        name: "reset", abstract: "Delete every key of a suite (tombstones, so the reset syncs).",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The suite name.")])

    let dir, suite: String

    init(_ a: ParsedArguments) throws { (dir, suite) = (a.positionals[0], a.positionals[1]) }

    func run(_ io: CommandIO) throws -> ExitCode {
        let n = try Arguments.openStore(dir).suite(suite).reset()
        io.out("reset \(suite): \(n) keys removed")
        return .ok
    }
}
