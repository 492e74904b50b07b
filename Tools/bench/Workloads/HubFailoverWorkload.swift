import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import Synchronization

/// Workload 17: failover of the hub's PostgreSQL to a streaming standby (`pg_basebackup -R`), with
/// a synchronous standby and with an asynchronous one. Devices on a multi-host URI push one new key
/// per sync, continuously; the primary is killed (`pg_ctl stop -m immediate`) and the standby promoted
/// at once, as a failover manager would. Measured: the time from the kill to the first successful push
/// (by a device that retries on its own), the promotion alone, and the changes lost — pushes a device
/// was told had succeeded that the new primary does not hold.
enum HubFailoverWorkload: Workload {
    static let name = "hub-failover"
    static let title = "17 hub failover: primary killed, standby promoted"
    static let summary = "kill to first successful push, promotion time and acknowledged pushes lost, with a synchronous and an asynchronous standby"

    /// A device pushing one new key per sync in a loop (a new connection each time), until stopped.
    final class Pusher: @unchecked Sendable {
        let store: Store
        let name: String
        let url: String
        let acked = Atomic<Int>(0)
        let frozen = Atomic<Bool>(false)
        let stopped = Atomic<Bool>(false)
        let lastSuccess = Mutex<UInt64>(0)
        let finished = Atomic<Bool>(false)

        init(store: Store, name: String, url: String) { (self.store, self.name, self.url) = (store, name, url) }

        func start() {
            Thread { [self] in
                var written = 0
                while !stopped.load(ordering: .acquiring) {
                    if frozen.load(ordering: .acquiring) {
                        usleep(1_000)
                        continue
                    }
                    do {
                        if written == acked.load(ordering: .acquiring) {
                            try store.suite("prefs").set(written, forKey: "\(name)-\(written)")
                            written += 1
                        }
                        try HubSynchronizer().sync(store, try Hub(url))
                        acked.store(written, ordering: .releasing)
                        let now = BenchClock.now()
                        lastSuccess.withLock { $0 = now }
                    } catch {
                        usleep(10_000)
                    }
                }
                finished.store(true, ordering: .releasing)
            }.start()
        }

        func stop() {
            stopped.store(true, ordering: .releasing)
            while !finished.load(ordering: .acquiring) { usleep(1_000) }
        }
    }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let runs = context.pick(quick: 1, full: 5)
        var figures: [Figure] = []
        for synchronous in [true, false] {
            let subject = synchronous ? "synchronous standby" : "asynchronous standby"
            var recovery: [Double] = []
            var promotion: [Double] = []
            var lost: [Double] = []
            var acknowledged: [Double] = []
            for run in 0..<runs {
                context.progress("\(name): \(subject), run \(run + 1) of \(runs)")
                let r = try once(synchronous: synchronous, context)
                recovery.append(r.recovery)
                promotion.append(r.promotion)
                lost.append(Double(r.lost))
                acknowledged.append(Double(r.acknowledged))
            }
            let scenario = "primary killed while devices push, standby promoted at once"
            figures += [
                Figure(workload: name, scenario: scenario, subject: subject, metric: "kill to first push", unit: .microseconds, samples: recovery),
                Figure(workload: name, scenario: scenario, subject: subject, metric: "promotion", unit: .microseconds, samples: promotion),
                Figure(workload: name, scenario: scenario, subject: subject, metric: "acknowledged pushes lost", unit: .count, samples: lost),
                Figure(workload: name, scenario: scenario, subject: subject, metric: "acknowledged pushes before the kill", unit: .count, samples: acknowledged)
            ]
        }
        return figures
    }

    private static func once(synchronous: Bool, _ context: BenchContext) throws -> (recovery: Double, promotion: Double, lost: Int, acknowledged: Int) {
        let primary = try ScratchPostgres(durable: true)
        defer { primary.destroy() }
        try primary.psql(["CREATE DATABASE failover"])
        let adminURL = primary.url(database: "failover")
        let admin = try HubAdmin(adminURL)
        try admin.initialize()
        let password = "failover-\(UUID().uuidString.prefix(8))"
        try admin.addAccount("alice", password: password)
        let standby = try primary.makeStandby(synchronous: synchronous)
        defer { standby.destroy() }
        let url = ScratchPostgres.multiHostURL([primary, standby], database: "failover", user: "alice", password: password)
        // Two devices whose acknowledged pushes are counted (they stop at the kill), and a third that
        // retries all along: its first success after the kill is the recovery.
        let counted = try (0..<2).map { Pusher(store: try Store(path: try context.scratch.makeDirectory("failover-\($0)")), name: "d\($0)", url: url) }
        let prober = Pusher(store: try Store(path: try context.scratch.makeDirectory("failover-prober")), name: "probe", url: url)
        for p in counted + [prober] { p.start() }
        defer { for p in counted + [prober] { p.stop() } }
        let warm = Date().addingTimeInterval(60)
        while (counted + [prober]).contains(where: { $0.acked.load(ordering: .acquiring) < 20 }) && Date() < warm { usleep(5_000) }
        primary.stop(.immediate)
        let killed = BenchClock.now()
        for p in counted { p.frozen.store(true, ordering: .releasing) }
        let acked = counted.map { $0.acked.load(ordering: .acquiring) }
        let promotion = try BenchClock.measure { try standby.promote() }
        let deadline = Date().addingTimeInterval(60)
        while prober.lastSuccess.withLock({ $0 }) < killed && Date() < deadline { usleep(1_000) }
        let first = prober.lastSuccess.withLock { $0 }
        guard first > killed else { throw BenchError("no push succeeded within 60 s of the kill") }
        let db = try PostgresConnection(ConnectionString(standby.url(database: "failover")))
        var lost = 0
        for (p, n) in zip(counted, acked) {
            let keys = (0..<n).map { "\(p.name)-\($0)" }
            let found = try db.execute(
                "SELECT count(*) FROM concord_hub.records WHERE account = 'alice' AND suite = 'prefs' AND key = ANY($1)", [.textArray(keys)]
            ).int64(0, 0)
            lost += n - Int(found)
        }
        return (Double(first - killed) / 1e3, Double(promotion) / 1e3, lost, acked.reduce(0, +))
    }
}
