import Concord
import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct ExclusiveChoiceTests {
    @Test func claimIsACompareAndSet() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let focus = Exclusive<Pane>("focus", in: box.suite)
        #expect(focus.current == nil)
        #expect(try focus.claim(.editor, ifCurrent: nil) != nil)
        #expect(focus.current == .editor)
        #expect(try focus.attemptClaim(.sidebar, ifCurrent: nil) == .refused(current: .editor))
        #expect(try focus.attemptClaim(.sidebar, ifCurrent: .search) == .refused(current: .editor))
        #expect(focus.current == .editor)
        #expect(try focus.claim(.sidebar, ifCurrent: .editor) != nil)
        #expect(focus.current == .sidebar)
        let stored = try #require(try box.suite.get("focus", as: Lease<Pane>.self), "stored as a lease")
        #expect(stored.choice == .sidebar && stored.isHeldByThisProcess && stored.expires == nil)
        #expect(stored.holder?.pid == ProcessInfo.processInfo.processIdentifier && stored.holder?.replica == box.store.replicaID)

        #expect(try !focus.release(.editor), "only the current choice can be released")
        #expect(focus.current == .sidebar)
        #expect(try focus.release(.sidebar))
        #expect(focus.current == nil)
        #expect(try !box.suite.contains("focus"))
    }

    @Test func aRefusedClaimWritesNothing() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let focus = Exclusive<Pane>("focus", in: box.suite)
        try focus.claim(.editor, ifCurrent: nil)
        let record = try box.suite.record(forKey: "focus")
        let stamp = box.store.commitStamp
        #expect(try focus.attemptClaim(.search, ifCurrent: nil) == .refused(current: .editor))
        #expect(try focus.claim(.editor, ifCurrent: .editor) != nil, "claiming what this process already holds succeeds")
        #expect(try !focus.release(.search))
        #expect(box.store.commitStamp == stamp)
        #expect(try box.suite.record(forKey: "focus") == record)
    }

    @Test func thePropertyWrapperMovesTheChoiceAndObserversLearnOfIt() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        struct Form {
            @Exclusive var focused: Pane?
            init(_ suite: Suite) { _focused = Exclusive("form.focus", in: suite) }
        }
        let form = Form(box.suite)
        let otherView = Form(box.suite)
        let moves = Collector<Pane?>()
        let token = try form.$focused.changes.start { moves.append($0.value) }
        var stream = form.$focused.changes.makeAsyncIterator()

        // A move supersedes the previous move's journal entry, so quick moves may arrive as one change with the
        // latest choice; each move here waits for the previous one to be delivered.
        form.focused = .editor
        #expect(otherView.focused == .editor)
        #expect(try #require(await stream.next()).value == .editor)
        #expect(await moves.arrival(of: 1))

        otherView.focused = .search
        #expect(form.focused == .search)
        #expect(try #require(await stream.next()).value == .search)
        #expect(await moves.arrival(of: 2))

        form.focused = nil
        #expect(otherView.focused == nil)
        let cleared = try #require(await stream.next())
        #expect(cleared.value == nil)
        #expect(!cleared.isSet)
        #expect(await moves.arrival(of: 3))
        #expect(moves.values == [.editor, .search, nil])
        token.cancel()
    }

    @Test func registeredDefaultsDoNotHoldAChoice() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.suite.register(defaults: ["lease": "ghost"])
        let lease = Exclusive<String>("lease", in: box.suite)
        #expect(lease.current == nil)
        #expect(try lease.claim("me", ifCurrent: nil) != nil)
        #expect(lease.current == "me")
    }

    @Test func aStoredValueOfAnotherTypeRefusesClaimsWithAnError() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.suite.set(7, forKey: "focus")
        let focus = Exclusive<Pane>("focus", in: box.suite)
        #expect(focus.current == nil)
        let error = #expect(throws: ConcordError.self) { try focus.claim(.editor, ifCurrent: nil) }
        #expect(error?.code == .typeMismatch && error?.key == "focus" && error?.operation == "write")
        #expect(try box.suite.get("focus", as: Int.self) == 7, "nothing was changed")
    }

    /// N real processes race for the same lease, 120 times; each time exactly one wins and every
    /// loser saw the winner holding it. The racers stay alive across rounds and start each round
    /// when they observe the round number in the store.
    @Test(.offThePool) func exactlyOneOfManyProcessesWinsEveryRace() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let racerCount = 4
        let rounds = 120
        let racers = try (0..<racerCount).map {
            try ChildProcess("concord-test-helper", ["claim-racer", box.path, box.suite.name, "racer\($0)", "\(rounds)"])
        }
        for racer in racers {
            try #require(racer.waitForLine { $0 == "ready" }, "racer did not start: \(racer.errorOutput)")
        }
        let go = Key("go", default: 0)
        for round in 1...rounds {
            try box.suite.set(round, for: go)
            for racer in racers {
                try #require(racer.waitForLine { $0.hasPrefix("round \(round) ") }, "round \(round): a racer did not answer: \(racer.errorOutput)")
            }
        }
        try box.suite.set(rounds + 1, for: go) // every racer has raced every round: they may go
        for racer in racers { #expect(racer.wait().status == 0) }

        let answers = racers.enumerated().map { index, racer in
            (name: "racer\(index)", lines: racer.completeLines.filter { $0.hasPrefix("round ") })
        }
        var winsPerRacer = [String: Int]()
        for round in 1...rounds {
            let prefix = "round \(round) "
            let results = answers.map { racer in (racer.name, racer.lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }) }
            let winners = results.filter { $0.1 == "won" }.map(\.0)
            try #require(winners.count == 1, "round \(round): \(results)")
            let winner = winners[0]
            winsPerRacer[winner, default: 0] += 1
            for (name, answer) in results where name != winner {
                #expect(answer == "lost \(winner)", "round \(round): \(name) answered \(answer ?? "nothing")")
            }
            // The racers have exited, so their leases no longer count; the stored lease still names the winner.
            #expect(try box.suite.get("lease-\(round)", as: Lease<String>.self)?.choice == winner)
            #expect(Exclusive<String>("lease-\(round)", in: box.suite).current == nil, "a holder whose process is gone holds nothing")
        }
        #expect(winsPerRacer.values.reduce(0, +) == rounds)
    }
}
