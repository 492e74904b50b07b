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
/// Each round is printed as `SyncReportText` prints a sync (with a hub's figures for a hub).
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
            let relayed = RemoteAddress.isRemote(local)
            let (there, here) = relayed ? ("in B", "in A") : ("there", "here")
            // A round's A is the local store (with two remotes, the first the relay opened): swapped
            // when that is the command's B.
            let swapped = !localIsA
            let peer: SyncReportText.Peer =
                relayed
                ? .relay(a: localIsA ? local : other, b: localIsA ? other : local)
                : HubSyncCommand.isHub(other) ? .hub : RemoteAddress.isRemote(other) ? .remote(other) : .directory
            let totals = Mutex((rounds: 0, pushed: 0, pulled: 0, conflicts: 0, disconnects: 0))
            let metrics = Mutex<MetricsFile?>(nil)
            let onEvent: @Sendable (LiveSyncEvent) -> Void = { event in
                switch event {
                case .connected: io.err("connected")
                case .disconnected(let error, let retry):
                    totals.withLock { $0.disconnects += 1 }
                    io.err("disconnected: \(error); retrying in \(String(format: "%.1f", retry)) s")
                case .synced(let round):
                    metrics.withLock { $0 }?.changed()
                    let text = SyncReportText(round, peer: peer, swapped: swapped)
                    // Records changed on the far side and here (with two remotes: in B and in A).
                    let (pushed, pulled) =
                        relayed
                        ? (text.report.aToB.recordsChanged, text.report.bToA.recordsChanged) : (round.aToB.recordsChanged, round.bToA.recordsChanged)
                    let n = totals.withLock { t in
                        t.rounds += 1
                        t.pushed += pushed
                        t.pulled += pulled
                        t.conflicts += round.conflictCount
                        return t.rounds
                    }
                    if json {
                        io.out(
                            text.json([
                                ("round", String(n)), ("pushed", String(pushed)), ("pulled", String(pulled)),
                                ("time_ms", String(UInt64(Date().timeIntervalSince1970 * 1000)))
                            ]))
                    } else {
                        if let line = text.resync.line { io.out(line) }
                        io.out("round \(n): \(pushed) records changed \(there), \(pulled) \(here), \(round.conflictCount) conflicts")
                        for c in round.conflicts { io.out("  " + SyncCommandSupport.conflictLine(c)) }
                        for line in text.notes { io.out("  " + line) }
                    }
                }
            }
            let live: LiveSync
            let title: String
            var localStore: Store?
            if RemoteAddress.isRemote(local) {
                let (a, b, options, selection) = (try RemoteAddress.parse(local), try RemoteAddress.parse(other), options, selection)
                live = LiveSync(heartbeat: heartbeat, onEvent: onEvent) {
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
                // The first session opens here: a hub that refuses live sync for good (a transaction
                // pooler, a missing account) ends the command with its exit code instead of retrying
                // forever; one that cannot be reached yet is retried like any broken session.
                let opened: HubLivePeer?
                do {
                    opened = try HubLivePeer(store: store, url: url, synchronizer: HubSynchronizer(selection: selection))
                } catch let error as ConcordError where error.code == .unreachable {
                    io.err("cannot reach the hub yet: \(error); retrying")
                    opened = nil
                }
                let first = Mutex<HubLivePeer?>(opened)
                live = try LiveSync(store: store, heartbeat: heartbeat, onEvent: onEvent) {
                    if let peer = first.withLock({ p in
                        defer { p = nil }
                        return p
                    }) {
                        return peer
                    }
                    return try HubLivePeer(store: store, url: url, synchronizer: HubSynchronizer(selection: selection))
                }
                title = "live sync \(store.directory) <-> \(ConnectionString(other))"
            } else if RemoteAddress.isRemote(other) {
                let store = try Arguments.openStore(local, create: options.create)
                localStore = store
                live = try LiveSync(store: store, remote: other, options: options, selection: selection, heartbeat: heartbeat, onEvent: onEvent)
                title = "live sync \(store.directory) <-> \(other)"
            } else {
                let store = try Arguments.openStore(local, create: options.create)
                let peer = try Arguments.openStore(other, create: options.create)
                localStore = store
                live = try LiveSync(store: store, heartbeat: heartbeat, onEvent: onEvent) {
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
