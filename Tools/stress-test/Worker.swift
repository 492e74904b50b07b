import Foundation
import Concord
#if canImport(Glibc)
import Glibc
#endif

/// One worker process: opens its replica and performs seeded random operations until the stop file
/// appears, logging each acknowledged operation (outside the store) with its version and latency.
struct Worker {
    static let dataSuite = "data"
    static let counterSuite = "counters"
    static let choiceSuite = "choice"
    static let keySpace = 64
    static let leaseMilliseconds: UInt64 = 200

    let directory: String
    let replica: String
    let worker: Int
    let incarnation: Int
    let seed: UInt64
    let mix: OperationMix
    let logPath: String
    let stopPath: String

    /// `stress-test --worker DIR REPLICA WORKER INCARNATION SEED MIX LOG STOP`
    init(arguments a: [String]) throws {
        guard a.count == 8, let worker = Int(a[2]), let incarnation = Int(a[3]), let seed = UInt64(a[4]) else {
            throw StressOptions.UsageError(description: "--worker takes DIR REPLICA WORKER INCARNATION SEED MIX LOG STOP")
        }
        directory = a[0]; replica = a[1]; self.worker = worker; self.incarnation = incarnation; self.seed = seed
        mix = try OperationMix.parse(a[5]); logPath = a[6]; stopPath = a[7]
    }

    func run() throws {
        let store = try Store(path: directory)
        let log = try OperationLogWriter(path: logPath)
        var random = SeededRandom(seed: seed &+ UInt64(worker) &* 1_000_003 &+ UInt64(incarnation) &* 7919)
        var n = 0
        while access(stopPath, F_OK) != 0 {
            let kind = mix.pick(using: &random)
            let key = "k\(Int.random(in: 0..<Self.keySpace, using: &random))"
            let started = DispatchTime.now().uptimeNanoseconds
            func latency() -> String { String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - started) / 1000) }
            switch kind {
            case .set:
                let value = "w\(worker)-i\(incarnation)-n\(n)"
                guard let version = try store.suite(Self.dataSuite).set(value, forKey: key) else { break }
                log.log(["set", key, String(version.hlc, radix: 16), version.replica.description, value, latency()])
            case .delete:
                if let version = try store.suite(Self.dataSuite).remove(key) { log.log(["del", key, String(version.hlc, radix: 16), version.replica.description, latency()]) }
            case .incr:
                let counter = "count-\(replica)"
                let value = try store.suite(Self.counterSuite).increment(counter)
                log.log(["incr", counter, String(value), latency()])
            case .reset:
                let removed = try store.suite(Self.dataSuite).reset()
                log.log(["reset", String(removed), latency()])
            case .claim:
                try claimAndRelease(store: store, log: log, random: &random, started: started)
            }
            n += 1
        }
    }

    /// Claims this replica's exclusive choice (compare-and-set in one write transaction, with a lease
    /// so a killed holder does not hold it forever), holds it briefly, and releases it if still the holder.
    private func claimAndRelease(store: Store, log: OperationLogWriter, random: inout SeededRandom, started: UInt64) throws {
        let key = "focus-\(replica)"
        func latency() -> String { String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - started) / 1000) }
        let claim = try store.write { w -> (Version, UInt64)? in
            let now = store.options.wallClock()
            if let current = try w.record(suite: Self.choiceSuite, key: key), let value = try current.value(),
               case .dictionary(let lease) = value, case .int(let until)? = lease["until"], UInt64(until) > now {
                return nil   // someone holds an unexpired lease
            }
            let until = now + Self.leaseMilliseconds
            guard let version = try w.set(.dictionary(["holder": .int(worker), "until": .int(Int(until))]), suite: Self.choiceSuite, key: key) else { return nil }
            return (version, until)
        }
        guard let (version, until) = claim else {
            log.log(["claim-lost", key, latency()])
            return
        }
        log.log(["claim", key, String(version.hlc, radix: 16), version.replica.description, String(until), latency()])
        usleep(UInt32.random(in: 1_000...20_000, using: &random))
        let releaseStarted = DispatchTime.now().uptimeNanoseconds
        let released = try store.write { w -> Version? in
            guard let current = try w.record(suite: Self.choiceSuite, key: key), let value = try current.value(),
                  case .dictionary(let lease) = value, lease["holder"] == .int(worker), current.version == version else { return nil }
            return try w.remove(suite: Self.choiceSuite, key: key)
        }
        if let released {
            log.log(["release", key, String(released.hlc, radix: 16), released.replica.description,
                     String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - releaseStarted) / 1000)])
        }
    }
}
