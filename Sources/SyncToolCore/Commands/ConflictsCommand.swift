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
        let names = try ReplicaNameText(store)
        // Each key's beaten writes numbered as why and restore number them: the newest loser is 1.
        let numbers = Dictionary(grouping: conflicts) { $0.suite + "\u{0}" + $0.key }.mapValues { $0.sorted(by: Conflict.newerLoser) }
        for c in conflicts {
            if json {
                io.out(
                    ValueText.object(
                        [
                            ("suite", ValueText.json(c.suite)), ("key", ValueText.json(c.key)),
                            ("winner", Self.side(c.winnerSide, names)), ("loser", Self.side(c.loserSide, names)),
                            ("peer", ValueText.json(c.peer.description))
                        ] + names.jsonField("peer_name", c.peer) + [
                            ("detected", ValueText.json(JSONValue.formatDate(Date(timeIntervalSince1970: Double(c.detectedMilliseconds) / 1000))))
                        ]))
            } else {
                let number = (numbers[c.suite + "\u{0}" + c.key]?.firstIndex(of: c) ?? 0) + 1
                io.out(names.annotated(SyncCommandSupport.conflictLine(c)) + " [restore --conflict \(number)]")
            }
        }
        if !json { io.out(clear ? "cleared \(conflicts.count) conflicts" : "\(conflicts.count) conflicts") }
        return .ok
    }

    /// One side as JSON: what `SyncCommandSupport.side` prints, and the writer's name when it has one.
    static func side(_ side: ConflictSide, _ names: ReplicaNameText) -> String {
        var json = SyncCommandSupport.side(side)
        let name = names.jsonField("writer_name", side.record.version.replica)
        if !name.isEmpty { json = String(json.dropLast()) + "," + String(ValueText.object(name).dropFirst()) }
        return json
    }
}
