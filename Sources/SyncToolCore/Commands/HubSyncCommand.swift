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
    var progress = ProgressStyle.none

    /// Whether `sync`'s B names a hub: a `postgresql://`/`postgres://` URI, or libpq keyword/value pairs
    /// when no file or directory of that name exists (a path that exists is always a replica).
    static func isHub(_ text: String) -> Bool {
        ConnectionString.isHubURL(text) || (ConnectionString.isKeywordValue(text) && !FileManager.default.fileExists(atPath: text))
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        do {
            let hub = try Hub(url) // first: a hub that cannot be reached leaves no new directory behind
            let store = try Arguments.openStore(directory, create: !dryRun)
            let display = ProgressDisplay(progress, io: io)
            defer { display.close() }
            var synchronizer = HubSynchronizer(selection: selection)
            synchronizer.onProgress = display.handler
            let report = try synchronizer.sync(store, hub, dryRun: dryRun)
            if json {
                io.out(Self.json(report))
            } else {
                io.out(
                    "\(dryRun ? "dry run: " : "")sync \(store.directory) (\(store.replicaID)) <-> hub \(hub.endpoint) account \(hub.account) (\(hub.replicaID)), \(selection)"
                )
                for line in Self.lines(report) { io.out(line) }
                io.out(report.isInSync ? "in sync" : (dryRun ? "changes pending" : "synced"))
            }
            // The sound rows merged; rows the gate refused are bad input held by the hub.
            if !report.pulled.refused.isEmpty { return .invalidInput }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }

    /// The resync line and fields of a hub sync: the replica is A, the hub B.
    static func resync(_ report: HubSyncReport) -> SyncCommandSupport.Resync {
        let device = report.pulled.target
        return SyncCommandSupport.Resync(
            report.historyResync, entries: report.pushed + report.pulled.entries - report.pulled.alreadyMerged, dryRun: report.dryRun,
            side: { $0 == device ? "A" : "B" }
        ) { $0 == device ? "A" : "B (the hub)" }
    }

    static func lines(_ report: HubSyncReport) -> [String] {
        let verb = report.dryRun ? "would change" : "changed"
        var out = resync(report).line.map { [$0] } ?? []
        out += [
            "push: \(report.pushed) changes sent, \(report.hubRowsChanged) hub rows \(verb)",
            "pull: \(report.pulled.entries - report.pulled.alreadyMerged) changes received in \(report.pages) pages, \(report.pulled.recordsChanged) records \(verb)"
        ]
        out.append("conflicts: \(report.conflicts.count)")
        for c in report.conflicts { out.append("  " + SyncCommandSupport.conflictLine(c)) }
        return out + notes(report)
    }

    /// What a sync's counts do not say: rows refused, changes left out, a full resync, clock skew.
    static func notes(_ report: HubSyncReport) -> [String] {
        var out: [String] = []
        if !report.pulled.refused.isEmpty {
            out.append(report.pulled.refused.line(noun: "row") + " (the hub's other rows merged)")
        }
        if !report.pushLeftOut.isEmpty {
            out.append(report.pushLeftOut.line(noun: "change", verb: "left out of the push") + " (stored here before the rules they break)")
        }
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
            ] + fields(report) + resync(report).jsonFields)
    }

    /// The hub's own figures of a sync, as JSON fields (a live round carries them too).
    static func fields(_ report: HubSyncReport) -> [(String, String)] {
        [
            ("hub_rows_changed", String(report.hubRowsChanged)), ("records_changed", String(report.pulled.recordsChanged)),
            ("pages", String(report.pages)), ("resync", String(report.resync)),
            ("rows_refused", String(report.pulled.refused.count)), ("changes_left_out", String(report.pushLeftOut.count)),
            ("clock_skew_warnings", String(report.pulled.skewedVersions))
        ]
    }
}
