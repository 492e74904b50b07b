import Concord
import ConcordHub
import Foundation

/// `sync-tool sync DIR postgresql://…`: syncs a replica with its account on a hub, once or live (`--watch`).
struct HubSyncCommand {
    let directory: String
    let url: String
    let selection: SyncSelection
    let dryRun, json, watch: Bool

    func run(_ io: CommandIO) throws -> ExitCode {
        try HubCommandSupport.mappingErrors {
            if watch { return try live(try Arguments.openStore(directory, create: true), io) }
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

    /// Syncs after every local commit and every change the hub announces, until the process is stopped.
    private func live(_ store: Store, _ io: CommandIO) throws -> ExitCode {
        let (selection, url, json) = (selection, url, json)
        let connected = ConnectionString(url)
        io.err("live sync \(store.directory) <-> \(connected) (stop with Ctrl-C)")
        let session = try LiveSync(
            store: store,
            onEvent: { event in
                switch event {
                case .connected: io.err("connected")
                case .disconnected(let error, let retry): io.err("disconnected: \(error); retrying in \(String(format: "%.1f", retry)) s")
                case .synced: break
                }
            }
        ) {
            try HubLivePeer(store: store, url: url, synchronizer: HubSynchronizer(selection: selection)) { report in
                guard !report.isInSync || !report.conflicts.isEmpty || report.historyResync != nil else { return }
                if json { io.out(Self.json(report)) } else { io.out(Self.lines(report).joined(separator: "; ")) }
            }
        }
        withExtendedLifetime(session) { while true { sleep(3600) } }
        return .ok
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
        if report.resync {
            out.append("full resync: this replica was behind the hub's tombstone horizon (deleted keys the hub no longer lists were deleted here)")
        }
        out.append("conflicts: \(report.conflicts.count)")
        for c in report.conflicts { out.append("  " + SyncCommandSupport.conflictLine(c)) }
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
                ("pushed", String(report.pushed)), ("hub_rows_changed", String(report.hubRowsChanged)),
                ("pulled", String(report.pulled.entries - report.pulled.alreadyMerged)), ("records_changed", String(report.pulled.recordsChanged)),
                ("pages", String(report.pages)), ("resync", String(report.resync)),
                ("conflicts", String(report.conflicts.count)), ("clock_skew_warnings", String(report.pulled.skewedVersions)),
                ("journal_entries_read", String(report.journalEntriesRead))
            ] + resync(report).jsonFields)
    }
}
