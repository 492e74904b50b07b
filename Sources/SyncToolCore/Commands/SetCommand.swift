import Concord

/// `sync-tool set DIR SUITE KEY VALUE [--type TYPE]`
struct SetCommand: Command {
    static let spec = CommandSpec(
        name: "set", abstract: "Store a value (durable when the command returns).",
        positionals: [
            .init(name: "DIR", help: "The replica directory (created if missing)."),
            .init(name: "SUITE", help: "The suite name."),
            .init(name: "KEY", help: "The key."),
            .init(name: "VALUE", help: "The value, as text of --type.")
        ],
        options: [
            .init(
                name: "type", valueName: "TYPE", help: "string (default), int, double, bool, data (base64), date (ISO 8601), url, json.",
                choices: ValueText.types)
        ])

    let dir, suite, key, value, type: String

    init(_ a: ParsedArguments) throws {
        (dir, suite, key, value) = (a.positionals[0], a.positionals[1], a.positionals[2], a.positionals[3])
        type = a.option("type") ?? "string"
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let parsed = try ValueText.parse(value, type: type)
        try Names.validateSuite(suite)
        try Names.validateKey(key, inSuite: suite)
        let store = try Arguments.openStore(dir, create: true)
        if let version = try store.suite(suite).set(parsed, forKey: key) {
            SkewWarning.check(version, store: store, io: io)
        }
        return .ok
    }
}
