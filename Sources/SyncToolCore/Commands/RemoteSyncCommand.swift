import Concord
import Foundation

/// `sync-tool sync DIR [user@]host:PATH` (or either way round): a session with `sync-tool serve` over ssh.
struct RemoteSyncCommand {
    let local: String
    let remote: RemoteAddress
    /// The remote is the first argument (A): the report says A and B as they were given.
    let remoteIsA: Bool
    let options: RemoteOptions
    let selection: SyncSelection
    let dryRun, json: Bool
    var progress = ProgressStyle.none

    func run(_ io: CommandIO) throws -> ExitCode {
        do {
            let store = try Arguments.openStore(local, create: options.create && !dryRun)
            let connection = try RemoteConnection.open(remote, options: options, suites: selection)
            defer { connection.close() }
            let session = try SyncSession(store: store, channel: connection.channel, selection: selection, dryRun: dryRun)
            let display = ProgressDisplay(progress, io: io)
            defer { display.close() }
            session.onProgress = display.handler
            let report = try session.round()
            let text = SyncReportText(report, peer: .remote(remote.description), swapped: remoteIsA)
            if json {
                io.out(text.json())
            } else {
                let here = "\(store.directory) (\(store.replicaID))"
                let there = "\(remote) (\(session.peer.replica))"
                io.out(
                    "\(dryRun ? "dry run: " : "")sync \(remoteIsA ? there : here) <-> \(remoteIsA ? here : there), \(session.selection)\(session.peer.readOnly ? " (the remote serves read-only: nothing sent to it)" : "")"
                )
                for line in text.lines + [text.status] { io.out(line) }
            }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }
}
