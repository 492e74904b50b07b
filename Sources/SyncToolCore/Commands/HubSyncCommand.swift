import Concord
import ConcordHub
import Foundation
import Synchronization

/// `sync-tool sync DIR postgresql://…`: syncs a replica with its account on a hub, once or live (`--watch`).
struct HubSyncCommand {
    let directory: String
    let url: String
    let selection: SyncSelection
    let dryRun, json, watch: Bool

    /// Whether `sync`'s B names a hub: a `postgresql://`/`postgres://` URI, or libpq keyword/value pairs
    /// when no file or directory of that name exists (a path that exists is always a replica).
    static func isHub(_ text: String) -> Bool {
        ConnectionString.isHubURL(text) || (ConnectionString.isKeywordValue(text) && !FileManager.default.fileExists(atPath: text))
    }

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
            // The sound rows merged; rows the gate refused are bad input held by the hub.
            if !report.pulled.refused.isEmpty { return .invalidInput }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }

    /// Syncs after every local commit and every change the hub announces, until the process is stopped.
    private func live(_ store: Store, _ io: CommandIO) throws -> ExitCode {
        let (selection, url, json) = (selection, url, json)
        let connected = ConnectionString(url)
        let onReport: @Sendable (HubSyncReport) -> Void = { report in
            guard !report.isInSync || !report.conflicts.isEmpty else { return }
            if json { io.out(Self.json(report)) } else { io.out(Self.lines(report).joined(separator: "; ")) }
        }
        // The first session opens here: a hub that refuses live sync for good (a transaction pooler, a
        // missing account) ends the command with its exit code instead of retrying forever; one that
        // cannot be reached yet is retried like any broken session.
        let opened: HubLivePeer?
        do {
            opened = try HubLivePeer(store: store, url: url, synchronizer: HubSynchronizer(selection: selection), onReport: onReport)
        } catch let error as HubError where error.isUnreachable {
            io.err("cannot reach the hub yet: \(error); retrying")
            opened = nil
        }
        let first = Mutex<HubLivePeer?>(opened)
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
            if let peer = first.withLock({ p in
                defer { p = nil }
                return p
            }) {
                return peer
            }
            return try HubLivePeer(store: store, url: url, synchronizer: HubSynchronizer(selection: selection), onReport: onReport)
        }
        withExtendedLifetime(session) { while true { sleep(3600) } }
        return .ok
    }

    static func lines(_ report: HubSyncReport) -> [String] {
        let verb = report.dryRun ? "would change" : "changed"
        var out = [
            "push: \(report.pushed) changes sent, \(report.hubRowsChanged) hub rows \(verb)",
            "pull: \(report.pulled.entries - report.pulled.alreadyMerged) changes received in \(report.pages) pages, \(report.pulled.recordsChanged) records \(verb)"
        ]
        if !report.pulled.refused.isEmpty {
            out.append(RefusedRecord.line(report.pulled.refused, noun: "row") + " (the hub's other rows merged)")
        }
        if !report.pushLeftOut.isEmpty {
            out.append(RefusedRecord.line(report.pushLeftOut, noun: "change", verb: "left out of the push") + " (stored here before the rules they break)")
        }
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
        ValueText.object([
            ("dry_run", String(report.dryRun)), ("in_sync", String(report.isInSync)),
            ("pushed", String(report.pushed)), ("hub_rows_changed", String(report.hubRowsChanged)),
            ("pulled", String(report.pulled.entries - report.pulled.alreadyMerged)), ("records_changed", String(report.pulled.recordsChanged)),
            ("pages", String(report.pages)), ("resync", String(report.resync)),
            ("rows_refused", String(report.pulled.refused.count)), ("changes_left_out", String(report.pushLeftOut.count)),
            ("conflicts", String(report.conflicts.count)), ("clock_skew_warnings", String(report.pulled.skewedVersions)),
            ("journal_entries_read", String(report.journalEntriesRead))
        ])
    }
}
