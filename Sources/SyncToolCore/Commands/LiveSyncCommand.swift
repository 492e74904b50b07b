import Concord
import ConcordSync
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `sync-tool sync A B --watch` with a directory and a directory or remote: a `LiveSync` until
/// SIGINT or SIGTERM, one line (or JSON object) per round, then a summary and exit 0.
struct LiveSyncCommand {
    let local: String
    let other: String
    let options: RemoteOptions
    let selection: SyncSelection
    let json: Bool
    let heartbeat: Double

    func run(_ io: CommandIO) throws -> ExitCode {
        try SyncCommandSupport.mappingErrors {
            let store = try Arguments.openStore(local, create: options.create)
            let json = json
            let totals = Mutex((rounds: 0, pushed: 0, pulled: 0, conflicts: 0, disconnects: 0))
            let onEvent: @Sendable (LiveSyncEvent) -> Void = { event in
                switch event {
                case .connected: io.err("connected")
                case .disconnected(let error, let retry):
                    totals.withLock { $0.disconnects += 1 }
                    io.err("disconnected: \(error); retrying in \(String(format: "%.1f", retry)) s")
                case .synced(let round):
                    let n = totals.withLock { t in
                        t.rounds += 1; t.pushed += round.pushed; t.pulled += round.pulled; t.conflicts += round.conflicts.count
                        return t.rounds
                    }
                    if json {
                        io.out(ValueText.object([("round", String(n)), ("pushed", String(round.pushed)), ("pulled", String(round.pulled)),
                                                 ("conflicts", String(round.conflicts.count)),
                                                 ("time_ms", String(UInt64(Date().timeIntervalSince1970 * 1000)))]))
                    } else {
                        io.out("round \(n): \(round.pushed) records changed there, \(round.pulled) here, \(round.conflicts.count) conflicts")
                        for c in round.conflicts { io.out("  " + SyncCommandSupport.conflictLine(c)) }
                    }
                }
            }
            let live: LiveSync
            if RemoteAddress.isRemote(other) {
                live = try LiveSync(store: store, remote: other, options: options, selection: selection, heartbeat: heartbeat, onEvent: onEvent)
            } else {
                let peer = try Arguments.openStore(other, create: options.create)
                live = try LiveSync(store: store, heartbeat: heartbeat, onEvent: onEvent) {
                    try DirectoryLivePeer(store: store, other: peer, selection: selection)
                }
            }
            io.err("live sync \(store.directory) <-> \(other) (stop with Ctrl-C)")
            Self.waitForTermination()
            live.stop()
            let t = totals.withLock { $0 }
            if json {
                io.out(ValueText.object([("summary", "true"), ("rounds", String(t.rounds)), ("pushed", String(t.pushed)), ("pulled", String(t.pulled)),
                                         ("conflicts", String(t.conflicts)), ("disconnects", String(t.disconnects))]))
            } else {
                io.out("stopped after \(t.rounds) rounds: \(t.pushed) records changed there, \(t.pulled) here, \(t.conflicts) conflicts, \(t.disconnects) disconnections")
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
