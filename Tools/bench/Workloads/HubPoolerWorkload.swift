import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import Synchronization

/// Workload 18: many devices syncing at once through PgBouncer (Debian's) in transaction mode with a
/// pool of 4 server connections, beside the same devices connecting to PostgreSQL directly (a backend
/// each), runs alternating. Each device, on a thread of its own, writes a key and runs a one-shot sync
/// (connect, SCRAM login, push, pull, disconnect) in a loop. Measured: syncs per second over all
/// devices, one sync's time, and the most server connections the account held.
enum HubPoolerWorkload: Workload {
    static let name = "hub-pooler"
    static let title = "18 hub pooler: many devices through PgBouncer in transaction mode"
    static let summary = "64 devices' one-shot syncs through PgBouncer (transaction mode, 4 server connections) beside direct connections"

    static let poolSize = 4

    static func run(_ context: BenchContext) throws -> [Figure] {
        let devices = context.pick(quick: 16, full: 64)
        let rounds = context.pick(quick: 3, full: 10)
        let runs = context.pick(quick: 1, full: 3)
        let server: ScratchPostgres
        do { server = try ScratchPostgres(durable: true) } catch {
            return [
                .skipped(
                    workload: name, scenario: "\(devices) devices", subject: "direct", metric: "syncs/s", unit: .operationsPerSecond,
                    because: "no PostgreSQL server here (\(error))")
            ]
        }
        defer { server.destroy() }
        let pooler: ScratchPgBouncer
        do { pooler = try ScratchPgBouncer(server, mode: .transaction, poolSize: poolSize, maxClientConnections: devices * 2) } catch {
            return [
                .skipped(
                    workload: name, scenario: "\(devices) devices", subject: "PgBouncer", metric: "syncs/s", unit: .operationsPerSecond,
                    because: "no PgBouncer here (\(error))")
            ]
        }
        defer { pooler.destroy() }
        try server.psql(["CREATE DATABASE pooled"])
        let admin = try HubAdmin(server.url(database: "pooled"))
        try admin.initialize()
        let watcher = try PostgresConnection(ConnectionString(server.url(database: "pooled")))
        var rates: [String: [Double]] = [:]
        var times: [String: [Double]] = [:]
        var peaks: [String: [Double]] = [:]
        var accounts = 0
        for run in 0..<runs {
            for subject in (run % 2 == 0 ? ["direct", "PgBouncer"] : ["PgBouncer", "direct"]) {
                accounts += 1
                let account = "pooled\(accounts)"
                let password = "pw-\(UUID().uuidString.prefix(8))"
                try admin.addAccount(account, password: password)
                let url =
                    subject == "direct"
                    ? server.url(database: "pooled", user: account, password: password)
                    : pooler.url(database: "pooled", user: account, password: password)
                context.progress("\(name): \(devices) devices × \(rounds) syncs, \(subject)")
                let stores = try (0..<devices).map { _ in try Store(path: try context.scratch.makeDirectory("pooled")) }
                let durations = Mutex<[Double]>([])
                let failures = Mutex<[String]>([])
                let done = Atomic<Int>(0)
                let started = BenchClock.now()
                for (i, store) in stores.enumerated() {
                    Thread {
                        for r in 0..<rounds {
                            do {
                                try store.suite("prefs").set(r, forKey: "device\(i)")
                                let t = try BenchClock.measure { try HubSynchronizer().sync(store, try Hub(url)) }
                                durations.withLock { $0.append(Double(t) / 1e3) }
                            } catch {
                                failures.withLock { $0.append("\(error)") }
                            }
                        }
                        done.add(1, ordering: .releasing)
                    }.start()
                }
                var peak: Int64 = 0
                while done.load(ordering: .acquiring) < devices {
                    let n = try watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = $1", [.text(account)]).int64(0, 0)
                    peak = max(peak, n)
                    usleep(1_000)
                }
                let elapsed = Double(BenchClock.now() - started) / 1e9
                if let failure = failures.withLock({ $0.first }) { throw BenchError("\(subject): a sync failed: \(failure)") }
                rates[subject, default: []].append(Double(devices * rounds) / elapsed)
                times[subject, default: []] += durations.withLock { $0 }
                peaks[subject, default: []].append(Double(peak))
            }
        }
        let scenario = "\(devices) devices at once, \(rounds) one-shot syncs each"
        return ["direct", "PgBouncer"].flatMap { subject in
            [
                Figure(workload: name, scenario: scenario, subject: subject, metric: "syncs/s", unit: .operationsPerSecond, samples: rates[subject] ?? []),
                Figure(workload: name, scenario: scenario, subject: subject, metric: "one sync", unit: .microseconds, samples: times[subject] ?? []),
                Figure(workload: name, scenario: scenario, subject: subject, metric: "most server connections", unit: .count, samples: peaks[subject] ?? [])
            ]
        }
    }
}
