import Concord
import Foundation
import Synchronization

/// `sync-tool log DIR [SUITE] [--since SEQ] [--json]`
struct LogCommand: Command {
    static let spec = CommandSpec(
        name: "log", abstract: "Print the change journal: one line per entry (seq, suite, key, type or \"deleted\", version).",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "Only this suite.", optional: true)],
        options: [.init(name: "since", valueName: "SEQ", help: "Only entries after this seq.")],
        flags: [.init(name: "json", help: "One JSON object per line.")])

    let dir: String
    let suite: String?
    let since: UInt64
    let json: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        suite = a.positional(1)
        json = a.flag("json")
        if let text = a.option("since") {
            guard let v = UInt64(text) else { throw CLIError.invalid("--since must be a non-negative integer, not '\(printable(text))'") }
            since = v
        } else {
            since = 0
        }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let store = try Arguments.openStore(dir)
        if let suite { try Names.validateSuite(suite) }
        let names = try ReplicaNameText(store)
        for entry in try store.journalEntries(after: since, suite: suite) {
            if json {
                io.out(ValueText.object([("seq", String(entry.seq))] + (try ValueText.recordFields(suite: entry.suite, key: entry.key, record: entry.record))))
            } else {
                let type = try entry.record.value()?.typeName ?? "deleted"
                io.out("\(entry.seq)\t\(entry.suite)\t\(printable(entry.key))\t\(type)\t\(names.annotated(entry.record.version.description))")
            }
        }
        return .ok
    }
}
