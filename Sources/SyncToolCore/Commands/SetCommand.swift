import Concord

/// `sync-tool set DIR SUITE KEY VALUE [--type TYPE]`
struct SetCommand: Command {
    static let spec = CommandSpec(
        name: "set", abstract: "Store a value (durable when the command returns).",
        positionals: [.init(name: "DIR", help: "The replica directory (created if missing)."),
                      .init(name: "SUITE", help: "The suite name."),
                      .init(name: "KEY", help: "The key."),
                      .init(name: "VALUE", help: "The value, as text of --type.")],
        options: [.init(name: "type", valueName: "TYPE", help: "string (default), int, double, bool, data (base64), date (ISO 8601), url, json.")])

    let dir, suite, key, value, type: String

    init(_ a: ParsedArguments) throws {
        (dir, suite, key, value) = (a.positionals[0], a.positionals[1], a.positionals[2], a.positionals[3])
        type = a.option("type") ?? "string"
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let parsed = try ValueText.parse(value, type: type)
        try Names.validateSuite(suite)
        try Names.validateKey(key)
        try Arguments.openStore(dir, create: true).suite(suite).set(parsed, forKey: key)
        return .ok
    }
}

/// `sync-tool get DIR SUITE KEY [--json]`
struct GetCommand: Command {
    static let spec = CommandSpec(
        name: "get", abstract: "Print a value (exit 1 when the key is not set).",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The suite name."), .init(name: "KEY", help: "The key.")],
        flags: [.init(name: "json", help: "Print one JSON object with suite, key, type, value and version.")])

    let dir, suite, key: String
    let json: Bool

    init(_ a: ParsedArguments) throws {
        (dir, suite, key) = (a.positionals[0], a.positionals[1], a.positionals[2])
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let s = try Arguments.openStore(dir).suite(suite)
        guard let record = try s.record(forKey: key), let value = try record.value() else {
            io.err("sync-tool get: key '\(printable(key))' is not set in suite '\(suite)'")
            return .notFound
        }
        io.out(json ? ValueText.object(try ValueText.recordFields(suite: suite, key: key, record: record)) : ValueText.plain(value))
        return .ok
    }
}

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

/// `sync-tool incr DIR SUITE KEY [BY]`
struct IncrCommand: Command {
    static let spec = CommandSpec(
        name: "incr", abstract: "Atomically add BY (default 1) to an integer and print the new value.",
        positionals: [.init(name: "DIR", help: "The replica directory (created if missing)."), .init(name: "SUITE", help: "The suite name."),
                      .init(name: "KEY", help: "The key (absent counts as 0)."), .init(name: "BY", help: "The amount, may be negative.", optional: true)])

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
