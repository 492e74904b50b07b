import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The serving side of a sync session (`sync-tool serve`): it answers a client's hello, merges the
/// batches the client sends and sends back what the client lacks, round after round, until the
/// client closes the stream. In a live session it also announces its replica's own commits (not
/// the ones merged from this client), so the client pulls at once.
///
/// A read-only server sends its changes and refuses every batch. Any error — a bad frame, a
/// newer protocol, silence, a store failure — is told to the client as a failure frame and thrown;
/// nothing of the frame that caused it was merged.
///
/// ```swift
/// try SyncServer(store: store).serve(SyncChannel(input: 0, output: 1))
/// ```
package struct SyncServer {
    package let store: Store
    /// Merge nothing; only send.
    package var readOnly = false
    /// The suites this server serves (nil: every suite the client asks for).
    package var suites: SyncSelection = .all

    package init(store: Store, readOnly: Bool = false, suites: SyncSelection = .all) {
        self.store = store
        self.readOnly = readOnly
        self.suites = suites
    }

    /// Serves one session on `channel`; returns when the client closes the stream.
    package func serve(_ channel: SyncChannel) throws {
        do { try session(channel) } catch let error as ConcordError {
            try? channel.send(.failure(error))
            throw error
        } catch {
            let failure = ConcordError.session(.peerStore, "\(store.directory): \(error)")
            try? channel.send(.failure(failure))
            throw failure
        }
    }

    /// Tells a client why no session can start (the replica cannot be opened, for example).
    package static func refuse(_ channel: SyncChannel, _ error: ConcordError) {
        try? channel.send(.failure(error))
    }

    private func session(_ channel: SyncChannel) throws {
        guard let first = try channel.receive() else { return }
        guard case .hello(let opening) = first else {
            throw ConcordError.session(.malformed, "the client's first frame is not a hello")
        }
        var client = opening
        guard client.replica != store.replicaID else {
            throw ConcordError.session(.refusedByPeer, ConcordError.sameReplica(store.replicaID, store.directory).description)
        }
        let selection = try effectiveSelection(client.selection)
        var hello = SyncHello(
            replica: store.replicaID, selection: selection, knowledge: PeerKnowledge(received: try store.peerCursors()),
            lastSeq: try store.lastSeq())
        hello.milliseconds = store.options.clock.read()
        hello.readOnly = readOnly
        hello.dryRun = client.dryRun
        hello.live = client.live
        try channel.send(.hello(hello))
        if opening.relay { client = try introduction(channel, after: opening, selection: selection) }
        let start = try SessionStart.exchange(store: store, channel: channel, peer: client, selection: selection, dryRun: client.dryRun)
        let endpoint = try SyncEndpoint(
            store: store, channel: channel, peer: client, selection: selection, dryRun: client.dryRun, announced: hello.lastSeq, start: start)
        endpoint.mayCloseBetweenBatches = opening.relay
        let clientID = client.replica
        let announcer = client.live ? try CommitSignal(store: store) { $0 == .sync(peer: clientID) } : nil
        // A live session registers itself as live with its client while it runs (`Store.livePeers`).
        let presence = client.live && !client.dryRun ? try LivePresence(directory: store.directory, peer: clientID) : nil
        defer { withExtendedLifetime(presence) {} }
        let idleTimeout = client.live ? nil : channel.timeout
        while true {
            if let announcer {
                switch channel.wait(orReadable: announcer.descriptor, seconds: idleTimeout) {
                case .other:
                    if announcer.drain() { try channel.send(.announce(seq: try store.lastSeq())) }
                    continue
                case .stream, .timeout: break
                }
            }
            guard let frame = try channel.receive() else { return }
            switch frame {
            case .batch, .end:
                // A round: the client's batches (if any), then ours. After merging some, at least one
                // batch goes back, so the client learns (from its knowledge) what was merged of it.
                // In a resync, at least one batch goes back whatever came: its acknowledgement proves the
                // client merged this replica's history.
                let resyncing = endpoint.resyncing
                let received = try endpoint.receiveChanges(first: frame, refuse: readOnly ? Self.readOnlyRefusal : nil)
                if endpoint.closedBetweenBatches { return }
                _ = try endpoint.sendChanges(atLeastOne: received.entries > 0 || resyncing)
            case .announce(let seq):
                endpoint.noteAnnouncement(seq) // the client's last seq, before batches that reach it
            case .failure(let error):
                throw ConcordError(error.code, "the client: " + error.message)
            case .hello, .ack, .verdict:
                throw ConcordError.session(.malformed, "the client sent an unexpected frame between rounds")
            }
        }
    }

    /// A relay's second hello: the replica it relays for, whose session this becomes.
    private func introduction(_ channel: SyncChannel, after opening: SyncHello, selection: SyncSelection) throws -> SyncHello {
        guard case .hello(var introduced)? = try channel.receive() else {
            throw ConcordError.session(.malformed, "a relay's second frame must be the hello of the replica it relays for")
        }
        guard !introduced.relay, introduced.replica != SyncHello.relayPlaceholder, introduced.selection == selection else {
            throw ConcordError.session(
                .malformed, "the relay introduced \(introduced.replica) for \(introduced.selection); the session is for \(selection) and needs a replica")
        }
        guard introduced.replica != store.replicaID else {
            throw ConcordError.session(.refusedByPeer, ConcordError.sameReplica(store.replicaID, store.directory).description)
        }
        introduced.dryRun = opening.dryRun
        introduced.live = opening.live
        return introduced
    }

    static let readOnlyRefusal = ConcordError.session(
        .readOnly, "this replica is served read-only: it sends its changes and merges nothing (the batch was not merged)")

    private func effectiveSelection(_ asked: SyncSelection) throws(ConcordError) -> SyncSelection {
        guard let served = suites.suites else { return asked }
        guard let wanted = asked.suites else { return suites }
        let outside = wanted.filter { !served.contains($0) }
        guard outside.isEmpty else {
            throw ConcordError.session(
                .refusedByPeer, "this server serves only suites \(served.joined(separator: ", ")); not \(outside.joined(separator: ", "))")
        }
        return asked
    }
}
