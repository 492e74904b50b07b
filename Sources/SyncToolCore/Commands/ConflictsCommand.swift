import Concord
import Foundation

/// `sync-tool conflicts DIR [SUITE] [--json] [--clear]`
struct ConflictsCommand: Command {
    static let spec = CommandSpec(
        name: "conflicts", abstract: "List the conflict log: concurrent writes that lost a merge (both values, versions and origins).",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "Only this suite.", optional: true)],
        flags: [
            .init(name: "json", help: "One JSON object per conflict."),
            .init(name: "clear", help: "Remove the listed conflicts from the log (they are printed once more as they go).")
        ])

    let dir: String
    let suite: String?
    let json, clear: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        suite = a.positional(1)
        json = a.flag("json")
        clear = a.flag("clear")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let store = try Arguments.openStore(dir)
        let conflicts = clear ? try store.clearConflicts(suite: suite) : try store.conflicts(suite: suite)
        for c in conflicts {
            if json {
                io.out(
                    ValueText.object([
                        ("suite", ValueText.json(c.suite)), ("key", ValueText.json(c.key)),
                        ("winner", SyncCommandSupport.side(c.winner)), ("loser", SyncCommandSupport.side(c.loser)),
                        ("peer", ValueText.json(c.peer.description)),
                        ("detected", ValueText.json(JSONValue.formatDate(Date(timeIntervalSince1970: Double(c.detectedMilliseconds) / 1000))))
                    ]))
            } else {
                io.out(SyncCommandSupport.conflictLine(c))
            }
        }
        if !json { io.out(clear ? "cleared \(conflicts.count) conflicts" : "\(conflicts.count) conflicts") }
        return .ok
    }
}
