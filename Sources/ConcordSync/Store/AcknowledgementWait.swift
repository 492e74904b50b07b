import Synchronization

/// One wait of ``Store/waitUntilAcknowledged``: woken by every commit to the replica (a sync's cursor
/// moves included, from any process), it checks each peer until all have acknowledged the changes
/// up to `through`, or the time is up.
///
/// A peer has acknowledged them when its acknowledged cursor on this replica reaches `through`, or
/// when nothing this replica holds would be sent to it any more (what is left after its cursor is
/// device-local, or its own changes): a sync that has nothing to send moves no cursor.
struct AcknowledgementWait: Sendable {
    let store: Store
    let peers: [ReplicaID]
    let through: UInt64

    /// The peers still behind, each with the changes it has not acknowledged.
    func behind() throws -> [(peer: ReplicaID, pending: Int)] {
        let cursors = try store.peerCursors()
        var out: [(ReplicaID, Int)] = []
        for peer in peers {
            let known = PeerKnowledge(acknowledgedBy: peer, in: cursors, owner: store.replicaID)
            if DeltaReader.start(of: store.replicaID, alreadyMerged: known, selection: .all) >= through { continue }
            let pending = try store.unacknowledged(by: peer, cursors: cursors)
            if pending > 0 { out.append((peer, pending)) }
        }
        return out
    }

    func run(timeout: Duration) async throws {
        let (wakes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let failure = Mutex<ConcordError?>(nil)
        let token = try store.observeCommits(
            onError: { error in
                failure.withLock { $0 = error }
                continuation.finish()
            }, { continuation.yield() })
        defer { token.cancel() }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        var left = try behind()
        var iterator = wakes.makeAsyncIterator()
        while !left.isEmpty {
            try Task.checkCancellation()
            guard await iterator.next() != nil else {
                if let error = failure.withLock({ $0 }) { throw error }
                try Task.checkCancellation()
                left = try behind()
                guard let first = left.first else { return }
                throw ConcordError.notAcknowledged(peer: first.peer, name: try store.name(of: first.peer), pending: first.pending, waited: timeout)
            }
            left = try behind()
        }
    }
}
