import Concord
import Foundation
import SplitMix

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
    static let leaseMilliseconds = 200
    /// A counter every worker of every replica increments (declared `.counter` in every replica).
    static let globalCounter = "count-global"
    /// The prefix of the data suite's device-local keys (declared in every replica): each replica
    /// keeps its own values, which must never reach another.
    static let localPrefix = "local-"

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
        directory = a[0]
        replica = a[1]
        self.worker = worker
        self.incarnation = incarnation
        self.seed = seed
        mix = try OperationMix.parse(a[5])
        logPath = a[6]
        stopPath = a[7]
    }

    /// The key of the data suite when the run is `--encrypted`: the file `CONCORD_KEY_FILE` names.
    static func suiteKey() throws -> EncryptionKey? {
        guard let path = ProcessInfo.processInfo.environment[Coordinator.keyFileVariable] else { return nil }
        return try EncryptionKey(contentsOfFile: path)
    }

    /// Store options holding `key` (if any) for the data suite.
    static func options(holding key: EncryptionKey?) -> Store.Options {
        var options = Store.Options()
        if let key { options.suiteKeys[dataSuite] = key }
        return options
    }

    func run() throws {
        let suiteKey = try Self.suiteKey()
        let store = try Store(path: directory, options: Self.options(holding: suiteKey))
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
                let data = try store.suite(Self.dataSuite)
                // One set in eight writes a device-local key, one in eight a value that expires soon (in
                // an encrypted suite, which holds neither, a plain value).
                switch suiteKey == nil ? Int.random(in: 0..<8, using: &random) : 2 {
                case 0:
                    let local = Self.localPrefix + key
                    guard let version = try data.set(value, forKey: local) else { break }
                    log.log(["set-local", local, String(version.hlc, radix: 16), version.replica.description, value, latency()])
                case 1:
                    let lifetime = Int64.random(in: 20...2_000, using: &random)
                    guard let version = try data.set(value, forKey: key, expiresAfter: .milliseconds(lifetime)),
                        let expiry = try data.record(forKey: key)?.expires
                    else { break }
                    log.log([
                        "set-exp", key, String(version.hlc, radix: 16), version.replica.description, value,
                        String(UInt64((expiry.timeIntervalSince1970 * 1000).rounded())), latency()
                    ])
                default:
                    guard let version = try data.set(value, forKey: key) else { break }
                    log.log(["set", key, String(version.hlc, radix: 16), version.replica.description, value, latency()])
                }
            case .delete:
                if let version = try store.suite(Self.dataSuite).remove(key) {
                    log.log(["del", key, String(version.hlc, radix: 16), version.replica.description, latency()])
                }
            case .incr:
                let counter = "count-\(replica)"
                let value = try store.suite(Self.counterSuite).increment(counter)
                log.log(["incr", counter, String(value), latency()])
                let globalStarted = DispatchTime.now().uptimeNanoseconds
                let global = try store.suite(Self.counterSuite).increment(Self.globalCounter)
                log.log([
                    "incr-global", Self.globalCounter, String(global),
                    String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - globalStarted) / 1000)
                ])
            case .reset:
                let removed = try store.suite(Self.dataSuite).reset()
                log.log(["reset", String(removed), latency()])
            case .claim:
                try claimAndRelease(store: store, log: log, random: &random, started: started)
            }
            n += 1
        }
    }

    /// Claims this replica's exclusive choice with the lease API (a killed holder loses it at once, a
    /// silent one when its lease expires), holds it briefly, and releases it if it still holds it.
    private func claimAndRelease(store: Store, log: OperationLogWriter, random: inout SeededRandom, started: UInt64) throws {
        let key = "focus-\(replica)"
        func latency(since start: UInt64) -> String { String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - start) / 1000) }
        let focus = Exclusive<Int>(key, in: try store.suite(Self.choiceSuite), lease: .milliseconds(Self.leaseMilliseconds))
        guard let lease = try focus.claim(worker, ifCurrent: nil), let version = lease.version, let until = lease.expiresMilliseconds else {
            log.log(["claim-lost", key, latency(since: started)])
            return
        }
        log.log(["claim", key, String(version.hlc, radix: 16), version.replica.description, String(until), latency(since: started)])
        usleep(UInt32.random(in: 1_000...20_000, using: &random))
        let releaseStarted = DispatchTime.now().uptimeNanoseconds
        if try focus.release(worker) { log.log(["release", key, latency(since: releaseStarted)]) }
    }
}
