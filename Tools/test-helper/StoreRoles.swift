import Concord
import Foundation

/// Roles for the store and journal tests (issues 2 and 3). Returns nil for a role it does not know.
///
/// - `write DIR SUITE PREFIX COUNT`: sets PREFIX-0 … PREFIX-(COUNT-1) to their index, printing `done I` after each durable set.
/// - `incr DIR SUITE KEY COUNT`: COUNT atomic increments, printing each new value.
/// - `write-forever DIR SUITE PREFIX`: like write, without end (to be killed); values carry a payload.
/// - `grow DIR SUITE PREFIX COUNT BYTES`: writes COUNT values of BYTES bytes each (forces map growth), then reads them all back.
/// - `read-loop DIR SUITE KEY SECONDS`: reads KEY in a loop, printing how many reads succeeded.
/// - `hold-read DIR`: opens a read transaction and prints `holding`, then sleeps (to be killed).
/// - `watch DIR COUNT`: observes the store and prints `SEQ SUITE KEY ORIGIN` per change until COUNT changes.
enum StoreRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "write":
            let suite = try openStore(args[0]).suite(args[1])
            for i in 0..<Int(args[3])! {
                try suite.set(i, forKey: "\(args[2])-\(i)")
                say("done \(i)")
            }
            return 0
        case "incr":
            let suite = try openStore(args[0]).suite(args[1])
            for _ in 0..<Int(args[3])! { say(String(try suite.increment(args[2]))) }
            return 0
        case "write-forever":
            let suite = try openStore(args[0]).suite(args[1])
            var i = 0
            let payload = String(repeating: "x", count: 200)
            while true {
                try suite.batch { b in
                    try b.set("\(i)-\(payload)", forKey: "\(args[2])-\(i)")
                    try b.set(i, forKey: "\(args[2])-last")
                }
                say("done \(i)")
                i += 1
            }
        case "grow":
            let suite = try openStore(args[0]).suite(args[1])
            let count = Int(args[3])!
            let bytes = Int(args[4])!
            let payload = Data(repeating: 0xAB, count: bytes)
            for i in 0..<count { try suite.set(payload, forKey: "\(args[2])-\(i)") }
            for i in 0..<count {
                guard try suite.get("\(args[2])-\(i)", as: Data.self) == payload else {
                    say("missing \(i)")
                    return 1
                }
            }
            say("ok \(count)")
            return 0
        case "read-loop":
            let suite = try openStore(args[0]).suite(args[1])
            let end = Date().addingTimeInterval(Double(args[3])!)
            var reads = 0
            while Date() < end {
                _ = try suite.value(forKey: args[2])
                reads += 1
            }
            say("reads \(reads)")
            return 0
        case "hold-read":
            let store = try openStore(args[0])
            try store.holdReadTransactionForTesting {
                say("holding")
                sleep(1000)
            }
            return 0
        case "watch":
            let store = try openStore(args[0])
            let target = Int(args[1])!
            let done = DispatchSemaphore(value: 0)
            let counter = Counter()
            let token = try store.changes().start { change in
                say("\(change.seq) \(change.suite) \(change.key) \(change.origin)")
                if counter.increment() == target { done.signal() }
            }
            say("ready")
            done.wait()
            token.cancel()
            return 0
        default:
            return nil
        }
    }
}

/// Opens a store with the map size from `CONCORD_INITIAL_MAP_SIZE`, if set (tests of map growth).
func openStore(_ path: String) throws -> Store {
    var options = Store.Options()
    if let size = ProcessInfo.processInfo.environment["CONCORD_INITIAL_MAP_SIZE"].flatMap(Int.init) { options.initialMapSize = size }
    return try Store(path: path, options: options)
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        n += 1
        return n
    }
}
