import Concord
import ConcordHub
import Foundation

/// `sync-tool sync DIR postgresql://…`: syncs a replica with its account on a hub once (with `--watch`,
/// `LiveSyncCommand` runs it live).
struct HubSyncCommand {
    let directory: String
    let url: String
    let selection: SyncSelection
    let dryRun, json: Bool

    func run(_ io: CommandIO) throws -> ExitCode {
        try HubCommandSupport.mappingErrors {
            let hub = try Hub(url) // first: a hub that cannot be reached leaves no new directory behind
            let store = try Arguments.openStore(directory, create: !dryRun)
            let report = try HubSynchronizer(selection: selection).sync(store, hub, dryRun: dryRun)
            if json {
                io.out(Self.json(report))
            } else {
                io.out(
                    "\(dryRun ? "dry run: " : "")sync \(store.directory) (\(store.replicaID)) <-> hub \(hub.endpoint) account \(hub.account) (\(hub.replicaID)), \(selection)"
                )
                for line in Self.lines(report) { io.out(line) }
                io.out(report.isInSync ? "in sync" : (dryRun ? "changes pending" : "synced"))
            }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }

    static func lines(_ report: HubSyncReport) -> [String] {
        let verb = report.dryRun ? "would change" : "changed"
        var out = [
            "push: \(report.pushed) changes sent, \(report.hubRowsChanged) hub rows \(verb)",
            "pull: \(report.pulled.entries - report.pulled.alreadyMerged) changes received in \(report.pages) pages, \(report.pulled.recordsChanged) records \(verb)"
        ]
        out.append("conflicts: \(report.conflicts.count)")
        for c in report.conflicts { out.append("  " + SyncCommandSupport.conflictLine(c)) }
        return out + notes(report)
    }

    /// What a sync's counts do not say: a full resync, clock skew.
    static func notes(_ report: HubSyncReport) -> [String] {
        var out: [String] = []
        if report.resync {
            out.append("full resync: this replica was behind the hub's tombstone horizon (deleted keys the hub no longer lists were deleted here)")
        }
        if report.pulled.skewedVersions > 0 {
            out.append(
                "clock skew warning: \(report.pulled.skewedVersions) versions from the hub were up to \(report.pulled.maxSkewMilliseconds / 1000) s ahead of this replica's clock (merged anyway; check the writers' clocks)"
            )
        }
        return out
    }

    static func json(_ report: HubSyncReport) -> String {
        ValueText.object(
            [
                ("dry_run", String(report.dryRun)), ("in_sync", String(report.isInSync)),
                ("pushed", String(report.pushed)), ("pulled", String(report.pulled.entries - report.pulled.alreadyMerged)),
                ("conflicts", String(report.conflicts.count)), ("journal_entries_read", String(report.journalEntriesRead))
            ] + fields(report))
    }

    /// The hub's own figures of a sync, as JSON fields (a live round carries them too).
    static func fields(_ report: HubSyncReport) -> [(String, String)] {
        [
            ("hub_rows_changed", String(report.hubRowsChanged)), ("records_changed", String(report.pulled.recordsChanged)),
            ("pages", String(report.pages)), ("resync", String(report.resync)),
            ("clock_skew_warnings", String(report.pulled.skewedVersions))
        ]
    }
}
