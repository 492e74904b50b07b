import Concord

/// `sync-tool get DIR SUITE KEY [--json]`
struct GetCommand: Command {
    static let spec = CommandSpec(
        name: "get", abstract: "Print a value (exit 1 when the key is not set).",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The suite name."), .init(name: "KEY", help: "The key.")],
        flags: [
            .init(
                name: "json",
                help: "Print one JSON object with suite, key, type, value and version (and expires, device_local when they apply).")
        ])

    let dir, suite, key: String
    let json: Bool

    init(_ a: ParsedArguments) throws {
        (dir, suite, key) = (a.positionals[0], a.positionals[1], a.positionals[2])
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let s = try Arguments.openStore(dir).suite(suite)
        let now = s.store.options.clock.read()
        guard let record = try s.record(forKey: key), let value = try record.value(at: now) else {
            let expired = try s.record(forKey: key)?.expires.map { " (its value expired at \(JSONValue.formatDate($0)))" } ?? ""
            io.err("sync-tool get: key '\(printable(key))' is not set in suite '\(suite)'\(expired)")
            return .notFound
        }
        guard json else {
            io.out(ValueText.plain(value))
            return .ok
        }
        var fields = try ValueText.recordFields(suite: suite, key: key, record: record, now: now)
        if try s.isDeviceLocal(key) { fields.append(("device_local", "true")) }
        io.out(ValueText.object(fields))
        return .ok
    }
}
