#if canImport(Glibc)
    import Glibc
#endif
/// Syncs two servers' replicas through this process, which holds no replica (see the architecture
/// document, "Relaying between two remotes"): a session with each, in which each server is
/// introduced to the other's replica, then batches forwarded as they are — each merged on the far
/// side in one transaction, and its acknowledgement passed back to the side that sent it. So each
/// side's cursors move only for whole batches the other side merged, and no third replica id enters
/// them.
///
/// <!-- assume:
/// let first = try RemoteConnection.open(try RemoteAddress.parse("desktop:settings"), options: RemoteOptions())
/// let second = try RemoteConnection.open(try RemoteAddress.parse("server:settings"), options: RemoteOptions())
/// -->
/// ```swift
/// let relay = try SyncRelay(a: first.channel, b: second.channel, selection: .all)
/// let round = try relay.round()
/// print(round.aToB.recordsChanged, "changed on B,", round.bToA.recordsChanged, "on A")
/// ```
package final class SyncRelay {
    /// Each server's own hello (its replica, the session's selection).
    package let helloA: SyncHello
    package let helloB: SyncHello
    private let a: RelaySide
    private let b: RelaySide
    private let dryRun: Bool
    /// Legs forwarded in one round before the relay stops waiting for the sides to run out of changes
    /// (while something keeps writing); the next round goes on from the cursors.
    var maxLegs = 16

    package init(a channelA: SyncChannel, b channelB: SyncChannel, selection: SyncSelection = .all, dryRun: Bool = false, live: Bool = false) throws {
        var hello = SyncHello(replica: SyncHello.relayPlaceholder, selection: selection, knowledge: .none, lastSeq: 0)
        hello.relay = true
        hello.dryRun = dryRun
        hello.live = live
        a = RelaySide(channelA)
        b = RelaySide(channelB)
        helloA = try a.open(hello)
        helloB = try b.open(hello)
        guard helloA.replica != helloB.replica else {
            throw ConcordError.session(.refusedByPeer, "both remotes are the same replica (\(helloA.replica)): there is nothing to sync")
        }
        guard helloA.selection == helloB.selection else {
            throw ConcordError.session(
                .refusedByPeer, "the remotes serve different suites (\(helloA.selection) and \(helloB.selection)): give --suite for suites both serve")
        }
        guard !helloA.readOnly, !helloB.readOnly else {
            throw ConcordError.session(
                .readOnly, "a remote is served read-only: a relay forwards both ways, so sync the read-only one with a local replica instead")
        }
        self.dryRun = dryRun
        try a.channel.send(.hello(helloB))
        try b.channel.send(.hello(helloA))
        // Each server checks the other's claims about it and sends its verdict, which goes on to the other.
        let verdictA = try a.expectVerdict()
        let verdictB = try b.expectVerdict()
        try b.channel.send(.verdict(verdictA))
        try a.channel.send(.verdict(verdictB))
        historyResync = SessionStart(mine: verdictA.check, theirs: verdictB.check).historyResync(me: helloA.replica, peer: helloB.replica)
    }

    /// Set when the servers resent everything both ways: one was found restored from an earlier state
    /// (or their cursors could not be proven). The first round reports it.
    package let historyResync: HistoryResync?
    private var reportedResync = false

    package var selection: SyncSelection { helloA.selection }

    /// One exchange: A's changes to B and B's to A, forwarded in legs until a side has nothing more
    /// (a dry run: one leg each way, then the sessions close).
    ///
    /// A leg forwards one server's batches to the other, each acknowledgement back, then its `end`,
    /// which starts the other's sending leg. A server that merged something always answers with at
    /// least one batch (so the sender learns what was merged), and the round ends at the first leg
    /// without a batch, with both servers between rounds.
    /// Both directions are as the far side acknowledged them: their conflicts are counted
    /// (``ApplyReport/remoteConflicts``), listed in the servers' logs.
    package func round() throws -> SyncReport {
        var report = SyncReport(
            aToB: ApplyReport(source: helloA.replica, target: helloB.replica), bToA: ApplyReport(source: helloB.replica, target: helloA.replica),
            dryRun: dryRun)
        try a.channel.send(.end) // A's round: the relay forwards nothing to it first; A sends what B lacks
        var (from, to, fromIsA) = (a, b, true)
        for leg in 1...maxLegs {
            let sent = try forward(from: from, to: to)
            if fromIsA { report.aToB.add(sent) } else { report.bToA.add(sent) }
            // A leg without a batch (after the first) ends the round: both servers are between rounds.
            if leg > 1 && sent.batches == 0 { break }
            // A dry run moves no cursor, so the sides would offer the same changes forever: one leg each way.
            if dryRun && leg == 2 { break }
            if leg == maxLegs { break }
            try to.channel.send(.end)
            (from, to, fromIsA) = (to, from, !fromIsA)
        }
        a.announced = false
        b.announced = false
        if !reportedResync {
            report.historyResync = historyResync
            reportedResync = true
        }
        return report
    }

    /// Forwards `from`'s batches to `to` and each acknowledgement back, until `from` ends its leg.
    private func forward(from: RelaySide, to: RelaySide) throws -> ApplyReport {
        var sent = ApplyReport(source: from.replica, target: to.replica)
        while true {
            switch try from.expectFrame("a batch or the end of its changes") {
            case .batch(let batch):
                try to.channel.send(.batch(batch))
                let ack = try to.awaitAck()
                try from.channel.send(.ack(ack))
                sent.add(ack.report(from: sent.source, into: sent.target))
            case .end:
                return sent
            case .announce(let seq):
                // The sender's last seq, ahead of a batch that reaches it: the far side must hear it first.
                try to.channel.send(.announce(seq: seq))
                from.announced = true
            default:
                throw ConcordError.session(.malformed, "a remote sent an unexpected frame while sending its changes")
            }
        }
    }

    /// Waits until either server announces a change, `wakeDescriptor` becomes readable, or `timeout` passes.
    package func waitForAnnouncement(timeout: Double, wakeDescriptor: Int32) throws -> LiveSyncWake {
        if a.announced || b.announced { return .announced }
        for side in [a, b] where side.channel.hasBufferedBytes { return try side.expectAnnouncement() }
        var fds = [a.channel.input, b.channel.input, wakeDescriptor].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let n = poll(&fds, 3, Int32(min(timeout * 1000, Double(Int32.max))))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return .timeout }
            if fds[0].revents != 0 { return try a.expectAnnouncement() }
            if fds[1].revents != 0 { return try b.expectAnnouncement() }
            return .local
        }
    }
}

/// One server of a relay: its channel, and whether it announced a change.
private final class RelaySide {
    let channel: SyncChannel
    var announced = false
    /// The server's replica, once its hello arrived.
    var replica = ReplicaID.zero

    init(_ channel: SyncChannel) { self.channel = channel }

    /// Sends the relay's hello and returns the server's.
    func open(_ hello: SyncHello) throws -> SyncHello {
        var sendError: ConcordError?
        do { try channel.send(.hello(hello)) } catch { sendError = error }
        let answer: SyncFrame?
        do { answer = try channel.receive() } catch { throw sendError ?? error }
        switch answer {
        case .hello(let peer):
            replica = peer.replica
            return peer
        case .failure(let error): throw ConcordError(error.code, "the peer: " + error.message)
        case nil: throw sendError ?? channel.describeFailure("the connection closed before the peer answered")
        default: throw ConcordError.session(.malformed, "the peer's first frame is not a hello")
        }
    }

    func expectVerdict() throws(ConcordError) -> SyncVerdict {
        switch try expectFrame("its verdict on the cursors") {
        case .verdict(let verdict): return verdict
        default: throw ConcordError.session(.malformed, "a remote sent something else where its verdict on the cursors belongs")
        }
    }

    func expectFrame(_ what: String) throws(ConcordError) -> SyncFrame {
        guard let frame = try channel.receive() else { throw channel.describeFailure("the connection closed while waiting for \(what)") }
        if case .failure(let error) = frame { throw ConcordError(error.code, "the peer: " + error.message) }
        return frame
    }

    func awaitAck() throws(ConcordError) -> SyncAck {
        while true {
            switch try expectFrame("an acknowledgement") {
            case .ack(let ack): return ack
            case .announce: announced = true
            default: throw ConcordError.session(.malformed, "a remote sent something else where an acknowledgement belongs")
            }
        }
    }

    func expectAnnouncement() throws -> LiveSyncWake {
        switch try expectFrame("an announcement") {
        case .announce: return .announced
        default: throw ConcordError.session(.malformed, "a remote sent something other than an announcement between rounds")
        }
    }
}
