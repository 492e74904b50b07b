import Concord

/// `sync-tool list DIR [SUITE] [--json]`
struct ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", abstract: "List the stored values of one suite or of all suites.",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "Only this suite.", optional: true)],
        flags: [.init(name: "json", help: "One JSON object per line (suite, key, type, value, version).")])

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
        for name in names {
            for (key, record) in try store.suite(name).records() where !record.isTombstone {
                if json {
                    io.out(ValueText.object(try ValueText.recordFields(suite: name, key: key, record: record)))
                } else if let value = try record.value() {
                    io.out("\(name)\t\(printable(key))\t\(value.typeName)\t\(printable(ValueText.plain(value)))")
                }
            }
        }
        return .ok
    }
}
