import Concord
import Foundation

/// `sync-tool sync [user@]host1:A [user@]host2:B`: a session with `sync-tool serve` on each, the
/// batches relayed through this process (which holds no replica).
struct RelaySyncCommand {
    let a: RemoteAddress
    let b: RemoteAddress
    let options: RemoteOptions
    let selection: SyncSelection
    let dryRun, json: Bool

    func run(_ io: CommandIO) throws -> ExitCode {
        do {
            let first = try RemoteConnection.open(a, options: options, suites: selection)
            defer { first.close() }
            let second = try RemoteConnection.open(b, options: options, suites: selection)
            defer { second.close() }
            let relay = try SyncRelay(a: first.channel, b: second.channel, selection: selection, dryRun: dryRun)
            let report = try relay.round()
            let (ab, ba) = (report.aToB, report.bToA)
            let conflicts = ab.conflicts + ba.conflicts
            let skewed = ab.skewedVersions + ba.skewedVersions
            let sent = ab.entries - ab.alreadyMerged + ba.entries - ba.alreadyMerged
            let resync = SyncCommandSupport.Resync(report.historyResync, entries: sent, dryRun: dryRun) { $0 == relay.helloA.replica ? "A" : "B" }
            if json {
                io.out(
                    ValueText.object(
                        [
                            ("dry_run", String(dryRun)), ("in_sync", String(report.isInSync)),
                            ("remote_a", ValueText.json(a.description)), ("remote_b", ValueText.json(b.description)),
                            ("sent_a_to_b", String(ab.entries - ab.alreadyMerged)), ("sent_b_to_a", String(ba.entries - ba.alreadyMerged)),
                            ("records_changed_a", String(ba.recordsChanged)), ("records_changed_b", String(ab.recordsChanged)),
                            ("records_changed", String(report.recordsChanged)),
                            ("conflicts", String(conflicts)), ("clock_skew_warnings", String(skewed)),
                            ("batches_sent", String(ab.batches + ba.batches))
                        ] + resync.jsonFields))
            } else {
                let verb = dryRun ? "would change" : "changed"
                io.out(
                    "\(dryRun ? "dry run: " : "")sync \(a) (\(relay.helloA.replica)) <-> \(b) (\(relay.helloB.replica)), \(relay.selection), relayed through this machine"
                )
                if let line = resync.line { io.out(line) }
                io.out("A -> B: \(ab.entries - ab.alreadyMerged) changes sent, \(ab.recordsChanged) records \(verb) in B")
                io.out("B -> A: \(ba.entries - ba.alreadyMerged) changes sent, \(ba.recordsChanged) records \(verb) in A")
                io.out("conflicts: \(conflicts)" + (conflicts > 0 ? " (found on the remote sides: see their conflict logs)" : ""))
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
