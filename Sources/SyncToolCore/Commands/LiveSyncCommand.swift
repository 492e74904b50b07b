import Concord
import ConcordHub
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `sync-tool sync A B --watch`: a `LiveSync` until SIGINT or SIGTERM, one line (or JSON object) per
/// round, then a summary and exit 0. `local` is a directory and `other` a directory, a remote or a
/// hub's URL, or both are remotes, relayed through this process (then its lines say "in B" and "in A").
/// A hub's rounds also carry its report's figures (hub rows changed, pages, a full resync, skew).
struct LiveSyncCommand {
    let local: String
    let other: String
    let options: RemoteOptions
    let selection: SyncSelection
    let json: Bool
    let heartbeat: Double
    /// The local directory was the first argument (A); with two remotes, `local` is A.
    var localIsA = true
    /// Keep this file current with the local replica's Prometheus metrics (`--metrics-file`).
    var metricsFile: String?

    func run(_ io: CommandIO) throws -> ExitCode {
        do {
            let json = json
            let (there, here) = RemoteAddress.isRemote(local) ? ("in B", "in A") : ("there", "here")
            let names = localIsA ? ["A", "B"] : ["B", "A"]
            let totals = Mutex((rounds: 0, pushed: 0, pulled: 0, conflicts: 0, disconnects: 0))
            // A hub round's full report, set by the peer just before the loop reports the round.
            let hubReport = Mutex<HubSyncReport?>(nil)
            let metrics = Mutex<MetricsFile?>(nil)
            let onEvent: @Sendable (LiveSyncEvent) -> Void = { event in
                switch event {
                case .connected: io.err("connected")
                case .disconnected(let error, let retry):
                    totals.withLock { $0.disconnects += 1 }
                    io.err("disconnected: \(error); retrying in \(String(format: "%.1f", retry.inSeconds)) s")
                case .synced(let round):
                    metrics.withLock { $0 }?.changed()
                    let n = totals.withLock { t in
                        t.rounds += 1
                        t.pushed += round.pushed
                        t.pulled += round.pulled
                        t.conflicts += round.conflicts.count + round.remoteConflicts
                        return t.rounds
                    }
                    let hub = hubReport.withLock { report in
                        defer { report = nil }
                        return report
                    }
                    // A hub round names the hub as a hub-sync line does; other rounds name A and B.
                    let resync =
                        hub.map(HubSyncCommand.resync)
                        ?? SyncCommandSupport.Resync(round.historyResync, entries: round.entriesSent) { id in
                            round.replicas.firstIndex(of: id).map { names[$0] } ?? "replica \(id)"
                        }
                    if json {
                        io.out(
                            ValueText.object(
                                [
                                    ("round", String(n)), ("pushed", String(round.pushed)), ("pulled", String(round.pulled)),
                                    ("conflicts", String(round.conflicts.count + round.remoteConflicts)),
                                    ("time_ms", String(UInt64(Date().timeIntervalSince1970 * 1000)))
                                ] + (hub.map(HubSyncCommand.fields) ?? []) + resync.jsonFields))
                    } else {
                        if let line = resync.line { io.out(line) }
                        io.out(
                            "round \(n): \(round.pushed) records changed \(there), \(round.pulled) \(here), \(round.conflicts.count + round.remoteConflicts) conflicts"
                        )
                        for c in round.conflicts { io.out("  " + SyncCommandSupport.conflictLine(c)) }
                        for line in hub.map(HubSyncCommand.notes) ?? [] { io.out("  " + line) }
                    }
                }
            }
            let live: LiveSync
            let title: String
            var localStore: Store?
            if RemoteAddress.isRemote(local) {
                let (a, b, options, selection) = (try RemoteAddress.parse(local), try RemoteAddress.parse(other), options, selection)
                live = LiveSync(heartbeat: .seconds(heartbeat), onEvent: onEvent) {
                    let first = try RemoteConnection.open(a, options: options, suites: selection)
                    let second: RemoteConnection
                    do { second = try RemoteConnection.open(b, options: options, suites: selection) } catch {
                        first.close()
                        throw error
                    }
                    return try RelayLivePeer(a: first, b: second, selection: selection)
                }
                title = "live sync \(a) <-> \(b), relayed through this machine"
            } else if HubSyncCommand.isHub(other) {
                // Like a one-off hub sync, a watch creates the replica it is given.
                let (store, url, selection) = (try Arguments.openStore(local, create: true), other, selection)
                localStore = store
                let onReport: @Sendable (HubSyncReport) -> Void = { report in hubReport.withLock { $0 = report } }
                // The first session opens here: a hub that refuses live sync for good (a transaction
                // pooler, a missing account) ends the command with its exit code instead of retrying
                // forever; one that cannot be reached yet is retried like any broken session.
                let opened: HubLivePeer?
                do {
                    opened = try HubLivePeer(store: store, url: url, synchronizer: HubSynchronizer(selection: selection), onReport: onReport)
                } catch let error as ConcordError where error.code == .unreachable {
                    io.err("cannot reach the hub yet: \(error); retrying")
                    opened = nil
                }
                let first = Mutex<HubLivePeer?>(opened)
                live = try LiveSync(store: store, heartbeat: .seconds(heartbeat), onEvent: onEvent) {
                    if let peer = first.withLock({ p in
                        defer { p = nil }
                        return p
                    }) {
                        return peer
                    }
                    return try HubLivePeer(store: store, url: url, synchronizer: HubSynchronizer(selection: selection), onReport: onReport)
                }
                title = "live sync \(store.directory) <-> \(ConnectionString(other))"
            } else if RemoteAddress.isRemote(other) {
                let store = try Arguments.openStore(local, create: options.create)
                localStore = store
                live = try LiveSync(store: store, remote: other, options: options, selection: selection, heartbeat: .seconds(heartbeat), onEvent: onEvent)
                title = "live sync \(store.directory) <-> \(other)"
            } else {
                let store = try Arguments.openStore(local, create: options.create)
                let peer = try Arguments.openStore(other, create: options.create)
                localStore = store
                live = try LiveSync(store: store, heartbeat: .seconds(heartbeat), onEvent: onEvent) {
                    try DirectoryLivePeer(store: store, other: peer, selection: selection)
                }
                title = "live sync \(store.directory) <-> \(other)"
            }
            if let metricsFile, let localStore {
                do {
                    let file = try MetricsFile(path: metricsFile, store: localStore, io: io)
                    metrics.withLock { $0 = file }
                    // The watch is already running: a round that ended before the file was set here
                    // told nobody, so the file is rewritten once more after its first pause.
                    file.changed()
                } catch {
                    live.stop()
                    throw error
                }
            }
            io.err("\(title) (stop with Ctrl-C)")
            Self.waitForTermination()
            live.stop()
            metrics.withLock { $0 }?.stop()
            let t = totals.withLock { $0 }
            if json {
                io.out(
                    ValueText.object([
                        ("summary", "true"), ("rounds", String(t.rounds)), ("pushed", String(t.pushed)), ("pulled", String(t.pulled)),
                        ("conflicts", String(t.conflicts)), ("disconnects", String(t.disconnects))
                    ]))
            } else {
                io.out(
                    "stopped after \(t.rounds) rounds: \(t.pushed) records changed \(there), \(t.pulled) \(here), \(t.conflicts) conflicts, \(t.disconnects) disconnections"
                )
            }
            return .ok
        }
    }

    /// Blocks until SIGINT or SIGTERM arrives.
    static func waitForTermination() {
        let done = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }
        done.wait()
        for source in sources { source.cancel() }
    }
}
