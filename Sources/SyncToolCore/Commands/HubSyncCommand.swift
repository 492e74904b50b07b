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
            let text = SyncReportText(report, peer: .hub)
            if json {
                io.out(text.json([("pushed", String(report.aToB.newEntries)), ("pulled", String(report.bToA.newEntries))]))
            } else {
                io.out(
                    "\(dryRun ? "dry run: " : "")sync \(store.directory) (\(store.replicaID)) <-> hub \(hub.endpoint) account \(hub.account) (\(hub.replicaID)), \(selection)"
                )
                for line in text.lines + [text.status] { io.out(line) }
            }
            // The sound rows merged; rows the gate refused are bad input held by the hub.
            if !report.bToA.refused.isEmpty { return .invalidInput }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }
}
