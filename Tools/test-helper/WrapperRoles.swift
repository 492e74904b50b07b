import Concord
import Foundation
import Synchronization

/// Roles for the wrapper tests. Returns nil for a role it does not know.
///
/// - `stored-set DIR SUITE KEY TEXT`: sets KEY through a `@Stored` String property, prints `set`.
/// - `stored-remove DIR SUITE KEY`: resets KEY through `$property.reset()`, prints `removed`.
/// - `stored-count DIR SUITE KEY COUNT`: sets the Int KEY to 1, 2, … COUNT through a `@Stored`
///   property, printing `done N` after each set has returned (so it is committed).
/// - `stored-increment DIR SUITE KEY COUNT`: COUNT atomic `$property.update { $0 += 1 }` of an Int
///   `@Stored` property, then prints `done`.
/// - `claim-racer DIR SUITE NAME ROUNDS`: a long-lived racer for the exclusive-choice race. Prints
///   `ready` once it observes the key `go`; whenever `go` reaches a round R it has not raced yet,
///   claims `lease-R` as NAME with `claim(NAME, ifCurrent: nil)` at once and prints
///   `round R won` or `round R lost HOLDER`. Exits once `go` passes ROUNDS, so every racer stays alive
///   (and its leases count) until all have raced.
enum WrapperRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "stored-set":
            let suite = try Store(path: args[0]).suite(args[1])
            @Stored(args[2], in: suite) var value = ""
            try $value.set(args[3])
            say("set")
            return 0
        case "stored-remove":
            let suite = try Store(path: args[0]).suite(args[1])
            @Stored(args[2], in: suite) var value = ""
            try $value.reset()
            say("removed")
            return 0
        case "stored-count":
            let suite = try Store(path: args[0]).suite(args[1])
            @Stored(args[2], in: suite) var count = 0
            for n in 1...Int(args[3])! {
                try $count.set(n)
                say("done \(n)")
            }
            return 0
        case "stored-increment":
            let suite = try Store(path: args[0]).suite(args[1])
            @Stored(args[2], in: suite) var count = 0
            for _ in 0..<Int(args[3])! { try $count.update { $0 += 1 } }
            say("done")
            return 0
        case "claim-racer":
            return try ClaimRacer(path: args[0], suite: args[1], name: args[2], rounds: Int(args[3])!).run()
        default:
            return nil
        }
    }
}

/// One process of the exclusive-choice race.
private final class ClaimRacer: Sendable {
    let suite: Suite
    let name: String
    let rounds: Int
    private let raced = Mutex(0)
    private let finished = DispatchSemaphore(value: 0)
    private let failure = Mutex<(any Error)?>(nil)

    init(path: String, suite: String, name: String, rounds: Int) throws {
        self.suite = try Store(path: path).suite(suite)
        self.name = name
        self.rounds = rounds
    }

    func run() throws -> Int32 {
        let go = Key("go", default: 0)
        let token = try suite.values(of: go).start { [self] round in race(upTo: round) }
        say("ready")
        race(upTo: suite[go]) // a round announced before the observation started
        finished.wait()
        token.cancel()
        if let error = failure.withLock({ $0 }) { throw error }
        return 0
    }

    /// Races every round not raced yet, up to `round` (announcements may coalesce).
    private func race(upTo round: Int) {
        let pending = raced.withLock { last -> [Int]? in
            let upTo = min(round, rounds)
            guard upTo > last else { return nil }
            defer { last = upTo }
            return Array((last + 1)...upTo)
        }
        for r in pending ?? [] {
            do {
                let lease = Exclusive<String>("lease-\(r)", in: suite)
                switch try lease.attemptClaim(name, ifCurrent: nil) {
                case .claimed: say("round \(r) won")
                case .refused(let holder): say("round \(r) lost \(holder ?? "-")")
                }
            } catch {
                failure.withLock { $0 = error }
                say("round \(r) error \(error)")
            }
        }
        if round > rounds { finished.signal() }
    }
}
