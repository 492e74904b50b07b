import Concord

/// `sync-tool name DIR [NAME]`
struct NameCommand: Command {
    static let spec = CommandSpec(
        name: "name", abstract: "Give this replica a human name (it syncs to every peer), or print the name it has.",
        positionals: [
            .init(name: "DIR", help: "The replica directory (created if missing when naming)."),
            .init(name: "NAME", help: "1–64 bytes of UTF-8 without control characters.", optional: true)
        ],
        discussion: """
            The name is a record of the reserved suite _concord (key replica-name:ID), so every transport \
            carries it to the peers, and why, conflicts and info print it beside the replica's id. \
            Without NAME, prints the name (exit 1 when the replica has none). A bad name is exit 3.
            """)

    let dir: String
    let name: String?

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        name = a.positional(1)
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        guard let name else {
            let store = try Arguments.openStore(dir)
            guard let current = try store.name(of: store.replicaID) else {
                io.err("sync-tool name: replica \(store.replicaID) has no name (give it one: sync-tool name DIR NAME)")
                return .notFound
            }
            io.out(current)
            return .ok
        }
        try ReplicaNames.validate(name)
        let store = try Arguments.openStore(dir, create: true)
        try store.setName(name)
        io.out("replica \(store.replicaID) is named \(printable(name))")
        return .ok
    }
}
