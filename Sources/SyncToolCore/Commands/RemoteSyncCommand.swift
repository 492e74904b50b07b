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
            let sentLocal = report.sent.entries - report.sent.alreadyMerged
            let sentRemote = report.received.entries - report.received.alreadyMerged
            let (sentAB, sentBA) = remoteIsA ? (sentRemote, sentLocal) : (sentLocal, sentRemote)
            let (changedA, changedB) =
                remoteIsA
                ? (report.sent.recordsChanged, report.received.recordsChanged)
                : (report.received.recordsChanged, report.sent.recordsChanged)
            let conflicts = report.received.conflicts.count + report.sent.conflicts
            let skewed = report.received.skewedVersions + report.sent.skewedVersions
            let localName = remoteIsA ? "B" : "A"
            let remoteName = remoteIsA ? "A" : "B"
            let resync = SyncCommandSupport.Resync(report.historyResync, entries: sentAB + sentBA, dryRun: dryRun) {
                $0 == store.replicaID ? localName : remoteName
            }
            if json {
                io.out(
                    ValueText.object(
                        [
                            ("dry_run", String(dryRun)), ("in_sync", String(report.isInSync)), ("remote", ValueText.json(remote.description)),
                            ("sent_a_to_b", String(sentAB)), ("sent_b_to_a", String(sentBA)),
                            ("records_changed_a", String(changedA)), ("records_changed_b", String(changedB)),
                            ("records_changed", String(report.recordsChanged)),
                            ("conflicts", String(conflicts)), ("clock_skew_warnings", String(skewed)),
                            ("batches_sent", String(report.sent.batches)), ("journal_entries_read", String(report.sent.journalEntriesRead)),
                            ("left_out", String(report.sent.leftOut.count))
                        ] + resync.jsonFields))
            } else {
                let verb = dryRun ? "would change" : "changed"
                let here = "\(store.directory) (\(store.replicaID))"
                let there = "\(remote) (\(session.peer.replica))"
                io.out(
                    "\(dryRun ? "dry run: " : "")sync \(remoteIsA ? there : here) <-> \(remoteIsA ? here : there), \(session.selection)\(session.peer.readOnly ? " (the remote serves read-only: nothing sent to it)" : "")"
                )
                if let line = resync.line { io.out(line) }
                io.out("A -> B: \(sentAB) changes sent, \(changedB) records \(verb) in B")
                io.out("B -> A: \(sentBA) changes sent, \(changedA) records \(verb) in A")
                io.out(
                    "conflicts: \(conflicts)" + (report.sent.conflicts > 0 ? " (\(report.sent.conflicts) found on the remote side: see its conflict log)" : ""))
                for c in report.received.conflicts { io.out("  " + SyncCommandSupport.conflictLine(c)) }
                if !report.sent.leftOut.isEmpty {
                    io.out(
                        "\(remoteIsA ? "B" : "A"): " + report.sent.leftOut.line(noun: "change", verb: "left out")
                            + " (stored there before the rules they break)")
                }
                if skewed > 0 {
                    io.out(
                        "clock skew warning: \(skewed) versions were ahead of the receiving side's clock by more than the allowed drift (merged anyway; check the writers' clocks)"
                    )
                }
                io.out(report.isInSync ? "in sync" : (dryRun ? "changes pending" : "synced"))
            }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }
}
