import Concord
import Foundation
import TestSupport
import Testing

/// Leases of exclusive choices: expiry and renewal, holders whose process is gone, slow holders,
/// loss observers, and what stays last-writer-wins across replicas. Other processes are real
/// (the test helper's `lease-holder` and `lease-claim` roles), and a holder is killed with SIGKILL.
@Suite(.timeLimit(.minutes(2)), .offThePool) struct LeaseTests {
    static func store(_ path: String, clock: ManualClock? = nil) throws -> Store {
        var options = Store.Options()
        if let clock { options.wallClock = clock.read }
        return try Store(path: path, options: options)
    }

    @Test func aLeaseHoldsUntilItExpiresAndARenewalExtendsIt() throws {
        let tmp = try TemporaryDirectory("lease")
        defer { tmp.remove() }
        let clock = ManualClock()
        let suite = try Self.store(tmp.path("r"), clock: clock).suite("app")
        let focus = Exclusive<Pane>("focus", in: suite, lease: .seconds(10))
        let claimed = try #require(try focus.claim(.editor, ifCurrent: nil))
        #expect(claimed.expiresMilliseconds == clock.milliseconds + 10_000 && claimed.isHeldByThisProcess)
        #expect(claimed.version == (try suite.record(forKey: "focus"))?.version)
        #expect(try focus.attemptClaim(.search, ifCurrent: nil) == .refused(current: .editor))
        clock.advance(9_999)
        #expect(focus.current == .editor)
        let renewed = try #require(try focus.renew())
        #expect(renewed.expiresMilliseconds == clock.milliseconds + 10_000)
        clock.advance(9_999)
        #expect(focus.current == .editor, "renewed")
        clock.advance(1)
        #expect(focus.current == nil && focus.currentLease == nil, "expired: a silent holder holds nothing")
        #expect(try focus.renew() == nil, "a renewal after the expiry is refused: the holder lost the choice")
        #expect(try !focus.release(.editor), "nothing to release")
        #expect(try focus.claim(.search, ifCurrent: nil) != nil, "the next claim succeeds")
    }

    @Test func aLeaseWhoseProcessIsGoneOrWhosePidWasReusedHoldsNothing() throws {
        let tmp = try TemporaryDirectory("lease")
        defer { tmp.remove() }
        let store = try Self.store(tmp.path("r"))
        let suite = try store.suite("app")
        let me = ProcessInfo.processInfo.processIdentifier
        // A lease naming this very pid but another start time: a later process that reused the pid.
        let reused: Value = .dictionary([
            "concord.lease": .int(1), "choice": .string("editor"), "replica": .string(store.replicaID.description),
            "holder": .string(String(repeating: "ab", count: 16)), "pid": .int(Int(me)), "start": .int(1)
        ])
        try suite.set(reused, forKey: "focus")
        let focus = Exclusive<Pane>("focus", in: suite)
        #expect(focus.current == nil, "a reused pid is not the holder")
        #expect(try focus.claim(.search, ifCurrent: nil) != nil)
        // The same lease from another replica is judged by its expiry alone (pids mean nothing there).
        try suite.set(
            Value.dictionary([
                "concord.lease": .int(1), "choice": .string("editor"), "replica": .string(ReplicaID.random().description),
                "holder": .string(String(repeating: "cd", count: 16)), "pid": .int(Int(me)), "start": .int(1)
            ]), forKey: "focus")
        #expect(focus.current == .editor)
    }

    /// The holder is SIGKILLed while its 60-second lease runs: another process claims at once, and an
    /// observer in a third process sees the choice move.
    @Test func aKilledHolderLosesTheChoiceAndAnotherProcessClaimsWithinTheLease() throws {
        let tmp = try TemporaryDirectory("lease")
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let suite = try Self.store(dir).suite("app")
        let focus = Exclusive<String>("focus", in: suite, lease: .seconds(60))
        let holder = try ChildProcess("concord-test-helper", ["lease-holder", dir, "app", "focus", "editor", "60000", "10000", "100"])
        try #require(holder.waitForLine { $0 == "claimed" }, "the holder did not claim: \(holder.errorOutput)")
        #expect(focus.current == "editor")
        #expect(focus.currentLease?.holder?.pid == holder.pid)
        #expect(try focus.attemptClaim("search", ifCurrent: nil) == .refused(current: "editor"), "a live holder keeps it")
        let moves = Collector<String?>()
        let token = try focus.changes.start { moves.append($0.value) }
        defer { token.cancel() }

        holder.kill()
        _ = holder.wait()
        #expect(focus.current == nil, "its process is gone: the choice is free, long before the lease would expire")
        let next = try ChildProcess("concord-test-helper", ["lease-holder", dir, "app", "focus", "search", "60000", "10000", "100"])
        defer {
            next.kill()
            _ = next.wait()
        }
        #expect(next.waitForLine { $0 == "claimed" }, "another process claims within the lease: \(next.output)")
        #expect(moves.wait(for: 1) && moves.values.contains("search"), "the observer saw the choice move")
        #expect(focus.current == "search" && focus.currentLease?.holder?.pid == next.pid)
    }

    /// A holder that stops renewing (alive, but slow) loses the choice at its expiry: it is told, its
    /// renewal is refused, and another claim succeeds — while it renewed, every claim was refused.
    @Test func aSlowHolderThatFailsToRenewLosesItAndIsTold() throws {
        let tmp = try TemporaryDirectory("lease")
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let suite = try Self.store(dir).suite("app")
        let focus = Exclusive<String>("focus", in: suite, lease: .seconds(3))
        let moves = Collector<String?>()
        let token = try focus.changes.start { moves.append($0.value) }
        defer { token.cancel() }
        let holder = try ChildProcess("concord-test-helper", ["lease-holder", dir, "app", "focus", "editor", "3000", "200", "5"])
        defer {
            holder.kill()
            _ = holder.wait()
        }
        try #require(holder.waitForLine { $0 == "claimed" }, "the holder did not claim: \(holder.errorOutput)")
        for n in 1...5 {
            try #require(holder.waitForLine { $0 == "renewed \(n)" }, "renewal \(n): \(holder.output)")
            #expect(try focus.attemptClaim("search", ifCurrent: nil) == .refused(current: "editor"), "renewal \(n): a renewing holder keeps it")
        }
        try #require(holder.waitForLine { $0 == "stalled" })
        var claimed = false
        let deadline = Date().addingTimeInterval(20)
        while !claimed && Date() < deadline {
            claimed = try focus.claim("search", ifCurrent: nil) != nil
            if !claimed { usleep(50_000) }
        }
        #expect(claimed, "the silent holder's lease expired and the next claim succeeded")
        #expect(holder.waitForLine { $0 == "lost editor" }, "the slow holder was told it lost the choice: \(holder.output)")
        #expect(holder.process.isRunning, "it lost the choice while alive")
        let sawBoth = Date().addingTimeInterval(20)
        while moves.values.last != "search" && Date() < sawBoth { usleep(2_000) }
        #expect(moves.values.contains("editor") && moves.values.last == "search", "observers saw both moves (renewals are moves too): \(moves.values)")
    }

    /// Across replicas the choice is a last-writer-wins value: two replicas apart each grant it; after
    /// a sync the later claim holds it in both, and the other holder's loss observer is told.
    @Test func acrossReplicasTheLaterClaimHoldsItAndTheOtherHolderIsTold() throws {
        let tmp = try TemporaryDirectory("lease")
        defer { tmp.remove() }
        let (dirA, dirB) = (tmp.path("a"), tmp.path("b"))
        let a = try Self.store(dirA)
        let b = try Self.store(dirB)
        let holder = try ChildProcess("concord-test-helper", ["lease-holder", dirA, "app", "focus", "editor", "60000", "300", "200"])
        defer {
            holder.kill()
            _ = holder.wait()
        }
        try #require(holder.waitForLine { $0 == "claimed" }, "\(holder.errorOutput)")
        let onB = Exclusive<String>("focus", in: try b.suite("app"), lease: .seconds(60))
        waitForWallClock(after: try #require(try a.suite("app").record(forKey: "focus")?.version.milliseconds)) // so B's claim is the later
        #expect(try onB.claim("search", ifCurrent: nil) != nil, "replica B grants it too: it has not seen A's claim")
        try Synchronizer().sync(a, b)
        let onA = Exclusive<String>("focus", in: try a.suite("app"))
        #expect(onA.current == "search" && onB.current == "search", "the later claim holds it in both replicas")
        #expect(holder.waitForLine { $0 == "lost editor" }, "the holder on A was told: \(holder.output)")
        #expect(holder.waitForLine { $0 == "renew refused" }, "and its renewal is refused")
    }

    @Test func releasingOrClearingTellsTheHolderAndOnlyTheHolderReleases() throws {
        let tmp = try TemporaryDirectory("lease")
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let suite = try Self.store(dir).suite("app")
        let focus = Exclusive<String>("focus", in: suite)
        let holder = try ChildProcess("concord-test-helper", ["lease-holder", dir, "app", "focus", "editor", "60000", "10000", "100"])
        defer {
            holder.kill()
            _ = holder.wait()
        }
        try #require(holder.waitForLine { $0 == "claimed" })
        #expect(try !focus.release("editor"), "another process's live lease is not this process's to release")
        try focus.select(nil) // an unconditional move (here, clearing) is always possible
        #expect(holder.waitForLine { $0 == "lost editor" }, "\(holder.output)")
        let lost = Collector<String>()
        let watch = try focus.observeLoss { lost.append($0.choice) }
        defer { watch.cancel() }
        try focus.select("mine")
        #expect(try focus.release("mine"))
        #expect(lost.wait(for: 1) && lost.values == ["mine"], "this process's own release ends its holding too")
    }
}
