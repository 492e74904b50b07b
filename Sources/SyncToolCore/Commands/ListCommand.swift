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

/// `sync-tool suites DIR`
struct SuitesCommand: Command {
    static let spec = CommandSpec(
        name: "suites", abstract: "List the suites of a replica, one per line.",
        positionals: [.init(name: "DIR", help: "The replica directory.")])

    let dir: String

    init(_ a: ParsedArguments) throws { dir = a.positionals[0] }

    func run(_ io: CommandIO) throws -> ExitCode {
        for name in try Arguments.openStore(dir).suiteNames() { io.out(name) }
        return .ok
    }
}

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
        let i = try Arguments.openStore(dir).info()
        let fields: [(String, String)] = [
            ("directory", ValueText.json(i.directory)), ("replica", ValueText.json(i.replicaID.description)),
            ("format", String(i.formatVersion)), ("suites", String(i.suites)), ("records", String(i.records)),
            ("tombstones", String(i.tombstones)), ("journal_entries", String(i.journalEntries)),
            ("last_seq", String(i.lastSeq)), ("file_bytes", String(i.fileBytes)), ("map_bytes", String(i.mapBytes)),
        ]
        if json {
            io.out(ValueText.object(fields))
        } else {
            for (k, v) in fields { io.out(k.padding(toLength: 16, withPad: " ", startingAt: 0) + v.replacingOccurrences(of: "\"", with: "")) }
        }
        return .ok
    }
}

/// `sync-tool check DIR`
struct CheckCommand: Command {
    static let spec = CommandSpec(
        name: "check", abstract: "Verify a replica; exit 4 when it is damaged.",
        positionals: [.init(name: "DIR", help: "The replica directory.")])

    let dir: String

    init(_ a: ParsedArguments) throws { dir = a.positionals[0] }

    func run(_ io: CommandIO) throws -> ExitCode {
        let report = try Arguments.openStore(dir).check()
        guard report.isSound else {
            for p in report.problems { io.err("damaged: \(p)") }
            return .storeError
        }
        io.out("ok: \(report.recordsChecked) records, \(report.journalEntriesChecked) journal entries")
        return .ok
    }
}
