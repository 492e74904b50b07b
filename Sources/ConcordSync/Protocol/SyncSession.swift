/// The client side of a sync session over a channel (see the architecture document, "Sync protocol"):
/// the handshake, then rounds — this replica's changes to the peer, each batch acknowledged, then
/// the peer's changes to this replica, each merged in one write transaction and acknowledged.
///
/// A session cut at any byte leaves both replicas with whole batches merged and cursors that only
/// moved forward; a new session starts from the cursors and sends only what was not acknowledged.
///
/// <!-- assume: let connection = try RemoteConnection.open(try RemoteAddress.parse("desktop:settings"), options: RemoteOptions()) -->
/// ```swift
/// let session = try SyncSession(store: laptop, channel: connection.channel)
/// let round = try session.round()
/// print(round.aToB.recordsChanged, "changed there,", round.bToA.recordsChanged, "here")
/// ```
package final class SyncSession {
    package let store: Store
    package let channel: SyncChannel
    /// The peer's hello: its replica, its selection (the session's), whether it is read-only.
    package let peer: SyncHello
    /// Set when the session started with a resync: a replica was found restored from an earlier state
    /// (or cursors could not be proven); the first round resends everything both ways.
    package let historyResync: HistoryResync?
    private let endpoint: SyncEndpoint
    /// The first round reports the session's resync.
    private var reportedResync = false

    /// Opens a session: sends this side's hello and reads the peer's.
    package init(store: Store, channel: SyncChannel, selection: SyncSelection = .all, dryRun: Bool = false, live: Bool = false) throws {
        self.store = store
        self.channel = channel
        var hello = SyncHello(
            replica: store.replicaID, selection: selection, knowledge: PeerKnowledge(received: try store.peerCursors()),
            lastSeq: try store.lastSeq())
        hello.milliseconds = store.options.clock.read()
        hello.dryRun = dryRun
        hello.live = live
        var sendError: ConcordError?
        do { try channel.send(.hello(hello)) } catch { sendError = error }
        // Even when the hello could not be sent, the peer may have said why it refused (then closed).
        let answer: SyncFrame?
        do { answer = try channel.receive() } catch { throw sendError ?? error }
        switch answer {
        case .hello(let peer):
            guard peer.replica != store.replicaID else { throw ConcordError.sameReplica(store.replicaID, store.directory) }
            guard selection.suites == nil || peer.selection == selection else {
                throw ConcordError.session(.malformed, "the peer answered for \(peer.selection), not the \(selection) asked for")
            }
            self.peer = peer
        case .failure(let error):
            throw ConcordError(error.code, "the peer: " + error.message)
        case nil:
            throw sendError ?? channel.describeFailure("the connection closed before the peer answered")
        default:
            throw ConcordError.session(.malformed, "the peer's first frame is not a hello")
        }
        // Each side checks the other's claims about its history before anything is sent or skipped.
        let start = try SessionStart.exchange(store: store, channel: channel, peer: peer, selection: peer.selection, dryRun: dryRun)
        historyResync = start.historyResync(me: store.replicaID, peer: peer.replica)
        endpoint = try SyncEndpoint(
            store: store, channel: channel, peer: peer, selection: peer.selection, dryRun: dryRun, announced: hello.lastSeq, start: start)
    }

    package var selection: SyncSelection { peer.selection }

    /// Told how far each round's send and receive have come (see `SyncEndpoint.onProgress`).
    package var onProgress: ProgressHandler? {
        get { endpoint.onProgress }
        set { endpoint.onProgress = newValue }
    }

    /// One exchange: this replica's changes to the peer (none to a read-only peer), then the peer's here.
    /// A is this replica, B the peer: ``SyncReport/aToB`` is what the peer acknowledged merging.
    package func round() throws -> SyncReport {
        let sent = peer.readOnly ? try endpoint.sendNothing() : try endpoint.sendChanges(atLeastOne: false)
        let received = try endpoint.receiveChanges()
        endpoint.announced = false
        var report = SyncReport(aToB: sent, bToA: received, dryRun: peer.dryRun)
        if !reportedResync {
            report.historyResync = historyResync
            reportedResync = true
        }
        return report
    }

    /// Waits until the peer announces a change, `wakeDescriptor` becomes readable, or `timeout` passes.
    package func waitForAnnouncement(timeout: Double, wakeDescriptor: Int32) throws -> LiveSyncWake {
        if endpoint.announced { return .announced }
        switch channel.wait(orReadable: wakeDescriptor, seconds: timeout) {
        case .other: return .local
        case .timeout: return .timeout
        case .stream:
            switch try endpoint.expectFrame("an announcement") {
            case .announce(let seq):
                endpoint.noteAnnouncement(seq)
                return .announced
            default: throw ConcordError.session(.malformed, "the peer sent something other than an announcement between rounds")
            }
        }
    }
}

extension SyncEndpoint {
    /// Ends this side's part of a round without sending a batch (to a read-only peer).
    func sendNothing() throws -> ApplyReport {
        try channel.send(.end)
        return ApplyReport(source: store.replicaID, target: peer)
    }
}
