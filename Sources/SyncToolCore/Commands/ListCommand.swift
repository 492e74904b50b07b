import Concord

/// `sync-tool list DIR [SUITE] [--json]`
struct ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", abstract: "List the stored values of one suite or of all suites.",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "Only this suite.", optional: true)],
        flags: [.init(name: "json", help: "One JSON object per line (suite, key, type, value, version; expires, device_local when they apply).")],
        discussion: "Values that have expired are not listed. A device-local key's line ends with a fifth column, device-local.")

    let dir: String
    let suite: String?
    let json: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        suite = a.positional(1)
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let store = try Arguments.openStore(dir)
        let names = try suite.map { [$0] } ?? store.suiteNames()
        let now = store.options.clock.read()
        let deviceLocal = try store.read { try $0.deviceLocalKeys() }
        for name in names {
            for (key, record) in try store.suite(name).records() where !record.readsAsAbsent(at: now) {
                let isLocal = name != "_concord" && deviceLocal.isDeviceLocal(suite: name, key: key)
                if json {
                    var fields = try ValueText.recordFields(suite: name, key: key, record: record, now: now)
                    if isLocal { fields.append(("device_local", "true")) }
                    io.out(ValueText.object(fields))
                } else if let value = try record.value(at: now) {
                    io.out("\(name)\t\(printable(key))\t\(value.typeName)\t\(printable(ValueText.plain(value)))\(isLocal ? "\tdevice-local" : "")")
                }
            }
        }
        return .ok
    }
}
