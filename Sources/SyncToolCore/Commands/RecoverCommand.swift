import Concord
import Foundation

/// `sync-tool recover DIR [--from PEER]... [--rsh CMD] [--remote-command PATH] [--timeout SECONDS]`
struct RecoverCommand: Command {
    static let spec = CommandSpec(
        name: "recover", abstract: "Rebuild a damaged replica from what can still be read, then sync it with its peers.",
        positionals: [.init(name: "DIR", help: "The damaged replica directory (no process may have it open).")],
        options: [
            .init(
                name: "from", valueName: "PEER", help: "Then sync with this peer, as 'sync-tool sync DIR PEER' (repeat for more).",
                repeating: true),
            .init(name: "rsh", valueName: "CMD", help: "For a remote peer: the ssh command and its options (default \"ssh\")."),
            .init(name: "remote-command", valueName: "PATH", help: "For a remote peer: the program run on the far side (default sync-tool)."),
            .init(name: "timeout", valueName: "SECONDS", help: "For a remote peer: the silence timeout (default 60).")
        ],
        flags: [.init(name: "force", help: "Rebuild a replica that reads back whole too (that only gives it a new id).")],
        discussion: """
            Reads the damaged data file directly (never through LMDB, which stops at a damaged page): every \
            record on a page that checks out is kept with its version, a record whose page is lost is taken from \
            its journal entry, and a key whose two copies disagree is left out. The records go into a new replica \
            with a new id and a new journal, which then takes DIR's place; the damaged directory is moved beside it \
            (DIR.damaged-TIME), untouched. Because the id is new, no peer has a cursor on it: the first sync with \
            each peer is a full one both ways, so what the damage lost comes back from the peers and nothing they \
            hold is lost. Peers keep cursors on the retired id (holding tombstones for it) until they forget it \
            (Store.forgetPeer).

            A replica that reads back whole is refused (exit 3) unless --force. Exit 4 when DIR is in use or the rebuilt replica cannot be written; a failed sync with a peer exits \
            with that sync's code (the rebuilt replica stays in place: run the sync again).
            """)

    let dir: String
    let peers: [String]
    let syncOptions: [String]
    let force: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        peers = a.values("from")
        var forwarded: [String] = []
        for name in ["rsh", "remote-command", "timeout"] { if let value = a.option(name) { forwarded += ["--\(name)", value] } }
        syncOptions = forwarded
        force = a.flag("force")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let report = try ReplicaRecovery.rebuild(dir, evenIfSound: force)
        let left = [
            report.disagreeing > 0 ? "\(report.disagreeing) whose row and journal entry disagree" : nil,
            report.undecodable > 0 ? "\(report.undecodable) rows or entries that do not decode" : nil
        ].compactMap { $0 }
        io.out(
            "recovered \(report.recordsRecovered) records of \(report.directory) (\(report.recoveredFromJournal) from the journal alone)"
                + (left.isEmpty ? "" : "; left out \(left.joined(separator: " and "))")
                + "; stepped around \(report.damage.count) damaged places; the damaged replica is in \(report.damagedCopy)")
        io.out(
            "new replica id \(report.replicaID)"
                + (report.retiredReplicaID.map { "; the damaged replica's id \($0) is retired (peers keep cursors on it until they forget it)" } ?? ""))
        for peer in peers {
            io.out("syncing with \(peer):")
            let code = SyncTool.run(["sync", report.directory, peer] + syncOptions, io: io)
            guard code == ExitCode.ok.rawValue else {
                io.out("the rebuilt replica is in place, but the sync with \(peer) failed: run 'sync-tool sync \(report.directory) \(peer)' again")
                return ExitCode(rawValue: code) ?? .storeError
            }
        }
        if peers.isEmpty { io.out("now sync it with its peers ('sync-tool sync \(report.directory) PEER'): the first sync with each is a full one") }
        return .ok
    }
}
