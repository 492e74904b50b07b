import Concord
import Foundation

/// `sync-tool set DIR SUITE KEY VALUE [--type TYPE] [--expires-in SECONDS | --expires-at DATE]`
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
                choices: ValueText.types),
            .init(name: "expires-in", valueName: "SECONDS", help: "The value expires this many seconds from now (reads as absent after)."),
            .init(name: "expires-at", valueName: "DATE", help: "The value expires at this ISO 8601 time (e.g. 2026-12-01T09:00:00Z).")
        ],
        discussion: """
            With --expires-in or --expires-at the value expires: from then on it reads as absent on every replica \
            that holds it (get exits 1, list leaves it out), watchers are told, and gc collects it like a deletion. \
            The expiry travels with the value and never decides which write wins a merge. Only a last-writer-wins \
            key's value can expire.
            """)

    let dir, suite, key, value, type: String
    /// When the value expires: seconds from now, or a time.
    let expiresIn: Double?
    let expiresAt: Date?

    init(_ a: ParsedArguments) throws {
        (dir, suite, key, value) = (a.positionals[0], a.positionals[1], a.positionals[2], a.positionals[3])
        type = a.option("type") ?? "string"
        if a.option("expires-in") != nil && a.option("expires-at") != nil {
            throw CLIError.usage("give either --expires-in or --expires-at, not both")
        }
        expiresIn = try a.option("expires-in").map { text in
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                throw CLIError.invalid("--expires-in must be a number of seconds above 0, not '\(printable(text))'")
            }
            return seconds
        }
        expiresAt = try a.option("expires-at").map { text in
            guard let date = JSONValue.parseDate(text) else {
                throw CLIError.invalid("--expires-at must be an ISO 8601 time (e.g. 2026-12-01T09:00:00Z), not '\(printable(text))'")
            }
            return date
        }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let parsed = try ValueText.parse(value, type: type)
        try Names.validateSuite(suite)
        try Names.validateKey(key, inSuite: suite)
        let store = try Arguments.openStore(dir, create: true)
        let s = try store.suite(suite)
        let version: Version?
        if let expiresIn {
            version = try s.set(parsed, forKey: key, expiresAfter: .milliseconds(Int64(min(expiresIn * 1000, 1e15).rounded(.up))))
        } else if let expiresAt {
            version = try s.set(parsed, forKey: key, expiresAt: expiresAt)
        } else {
            version = try s.set(parsed, forKey: key)
        }
        if let version { SkewWarning.check(version, store: store, io: io) }
        return .ok
    }
}
