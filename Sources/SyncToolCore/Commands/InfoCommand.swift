import Concord

/// `sync-tool info DIR [--json]`
struct InfoCommand: Command {
    static let spec = CommandSpec(
        name: "info", abstract: "Show the replica id, format version, counts and sizes.",
        positionals: [.init(name: "DIR", help: "The replica directory.")],
        flags: [.init(name: "json", help: "Print one JSON object.")])

    let dir: String
    let json: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let store = try Arguments.openStore(dir)
        let i = try store.info()
        let name = try store.name(of: i.replicaID).map { [("replica_name", ValueText.json($0))] } ?? []
        let fields: [(String, String)] =
            [("directory", ValueText.json(i.directory)), ("replica", ValueText.json(i.replicaID.description))] + name + [
                ("format", String(i.formatVersion)), ("suites", String(i.suites)), ("records", String(i.records)),
                ("tombstones", String(i.tombstones)), ("journal_entries", String(i.journalEntries)),
                ("last_seq", String(i.lastSeq)), ("file_bytes", String(i.fileBytes)), ("map_bytes", String(i.mapBytes))
            ]
        if json {
            io.out(ValueText.object(fields))
        } else {
            for (k, v) in fields { io.out(k.padding(toLength: 16, withPad: " ", startingAt: 0) + v.replacingOccurrences(of: "\"", with: "")) }
        }
        return .ok
    }
}
