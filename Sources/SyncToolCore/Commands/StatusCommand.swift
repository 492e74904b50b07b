import Concord
import Foundation

/// `sync-tool status DIR [--json]`
struct StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status", abstract: "Is it synced yet? Per peer (and hub): its name, last sync, changes it has not acknowledged, whether it is live.",
        positionals: [.init(name: "DIR", help: "The replica directory.")],
        flags: [.init(name: "json", help: "Print one JSON object: the replica, and its peers.")],
        discussion: """
            One line per peer this replica keeps cursors on (every replica or hub it synced with, directly or by \\
            bundle; a hub account shows as the peer named "hub ACCOUNT"): its name, when a sync with it last moved \\
            a cursor, how many of this replica's changes it has not acknowledged (what a sync would send it now: \\
            its own changes and device-local keys are not counted), and whether a live session with it runs now \\
            (sync --watch, a live serve, an app's LiveSync). A live session registers itself in the replica \\
            directory under a lock the kernel releases when its process ends, so a killed one never shows as live.
            """)

    let dir: String
    let json: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let store = try Arguments.openStore(dir)
        let peers = try store.peerStatus()
        let name = try store.name(of: store.replicaID)
        if json {
            let rows = peers.map { p in
                ValueText.object(
                    [("peer", ValueText.json(p.peer.description))] + (p.name.map { [("name", ValueText.json($0))] } ?? []) + [
                        ("last_synced", p.lastSynced.map { ValueText.json(JSONValue.formatDate($0)) } ?? "null"),
                        ("unacknowledged", String(p.unacknowledged)), ("live", p.isLive ? "true" : "false")
                    ])
            }
            io.out(
                ValueText.object(
                    [("replica", ValueText.json(store.replicaID.description))] + (name.map { [("name", ValueText.json($0))] } ?? [])
                        + [("peers", "[" + rows.joined(separator: ",") + "]")]))
            return .ok
        }
        io.out("replica \(store.replicaID)\(name.map { " (\(printable($0)))" } ?? "") at \(store.directory)")
        if peers.isEmpty { io.out("no peers: it has not synced with anyone") }
        for p in peers {
            let who = p.name.map { "\(p.peer) (\(printable($0)))" } ?? "\(p.peer)"
            let last = p.lastSynced.map { "last synced \(JSONValue.formatDate($0))" } ?? "never synced"
            let pending = p.unacknowledged == 0 ? "up to date" : "\(p.unacknowledged) change\(p.unacknowledged == 1 ? "" : "s") not acknowledged"
            io.out("\(who): \(p.isLive ? "live" : "not live"), \(last), \(pending)")
        }
        return .ok
    }
}
