import Concord

/// `sync-tool incr DIR SUITE KEY [BY]`
struct IncrCommand: Command {
    static let spec = CommandSpec(
        name: "incr", abstract: "Atomically add BY (default 1) to an integer and print the new value.",
        positionals: [
            .init(name: "DIR", help: "The replica directory (created if missing)."), .init(name: "SUITE", help: "The suite name."),
            .init(name: "KEY", help: "The key (absent counts as 0)."), .init(name: "BY", help: "The amount, may be negative.", optional: true)
        ],
        discussion: """
            On a counter key (sync-tool policy DIR SUITE KEY counter) the increment is this replica's \
            contribution: increments made on every replica add up when they sync, each counted once. On \
            an lww key (the default) it is atomic in this replica but last-writer-wins across replicas: of \
            two concurrent increments on two replicas one is kept (the other goes to the conflict log). \
            On a max or min key it proposes the sum. A set key cannot be incremented (exit 3).
            """)

    let dir, suite, key: String
    let by: Int

    init(_ a: ParsedArguments) throws {
        (dir, suite, key) = (a.positionals[0], a.positionals[1], a.positionals[2])
        by = try a.positional(3).map { try Arguments.int($0, name: "BY") } ?? 1
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        try Names.validateSuite(suite)
        io.out(String(try Arguments.openStore(dir, create: true).suite(suite).increment(key, by: by)))
        return .ok
    }
}
