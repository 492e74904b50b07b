import Concord
import ConcordHub
import Foundation
import ScratchPostgres

/// Workload 16: one account's sync on a hub whose `records` and `devices` are 16 hash partitions by
/// account, beside the same on a hub of plain tables, and on plain tables whose limit triggers are
/// disabled (what enforcing the limits costs), in one server and run, each holding the same number of
/// other accounts (2,000 × 20 keys in a full run). Runs alternate between the hubs.
enum HubPartitionWorkload: Workload {
    static let name = "hub-partitions"
    static let title = "16 hub partitions: one account's sync, 16 hash partitions against plain tables"
    static let summary = "a 10-change round trip, a 1,000-change push and a first sync on 16 partitions, plain tables, and plain tables without limits"

    static let bulk = 1_000

    static let keys = 20

    static func run(_ context: BenchContext) throws -> [Figure] {
        let accounts = context.pick(quick: 50, full: 2_000)
        let runs = context.pick(quick: 4, full: 30)
        let server: ScratchPostgres
        do { server = try ScratchPostgres(durable: true) } catch {
            return [
                .skipped(
                    workload: name, scenario: "10-change round trip", subject: HubSyncWorkload.hubName, metric: "plain tables", unit: .microseconds,
                    because: "no PostgreSQL server here (\(error))")
            ]
        }
        defer { server.destroy() }
        let root = try PostgresConnection(ConnectionString(server.url()))
        struct Side {
            let label: String
            let url: String
            let seed: Store
            let seedHub: Hub
            let laptop: Store
            let laptopHub: Hub
            var roundTrip: [Double] = []
            var first: [Double] = []
            var push: [Double] = []
        }
        var sides: [Side] = []
        for (label, database, partitions) in [
            ("plain tables", "plain", nil as Int?), ("16 partitions", "partitioned", 16), ("plain tables, limits off", "unlimited", nil)
        ] {
            try root.execute("CREATE DATABASE \(database)")
            let adminURL = server.url(database: database)
            let admin = try HubAdmin(adminURL)
            try admin.initialize(partitions: partitions)
            if database == "unlimited" {
                for table in ["records", "devices"] { try admin.db.execute("ALTER TABLE concord_hub.\(table) DISABLE TRIGGER USER") }
            }
            context.progress("\(name): \(label), \(grouped(accounts)) accounts × \(keys) keys")
            try populate(admin, adminURL: adminURL, database: database, accounts: accounts)
            let password = "measured-\(UUID().uuidString.prefix(8))"
            try admin.addAccount("m_\(database)", password: password)
            let url = server.url(database: database, user: "m_\(database)", password: password)
            let seed = try Store(path: try context.scratch.makeDirectory("parts-seed"))
            try seed.suite("app").batch { b in for k in 0..<keys { try b.set("value \(k)", forKey: "key\(k)") } }
            let laptop = try Store(path: try context.scratch.makeDirectory("parts-laptop"))
            try HubSynchronizer().sync(seed, try Hub(url))
            try HubSynchronizer().sync(laptop, try Hub(url))
            sides.append(Side(label: label, url: url, seed: seed, seedHub: try Hub(url), laptop: laptop, laptopHub: try Hub(url)))
        }
        // The round trips and first syncs cover the "app" suite (20 keys); the 1,000-change pushes go to "bulk".
        let app = HubSynchronizer(selection: try SyncSelection(suites: ["app"]))
        context.progress("\(name): \(runs) runs, alternating")
        for run in 0..<runs {
            for i in (run % 2 == 0 ? [0, 1, 2] : [2, 1, 0]) {
                let side = sides[i]
                try side.seed.suite("app").batch { b in for k in 0..<10 { try b.set(run, forKey: "key\(k)") } }
                let t = try BenchClock.measure {
                    try app.sync(side.seed, side.seedHub)
                    let r = try app.sync(side.laptop, side.laptopHub)
                    guard r.bToA.recordsChanged == 10 else { throw BenchError("a round trip pulled \(r.bToA.recordsChanged) of 10") }
                }
                sides[i].roundTrip.append(Double(t) / 1e3)
                let device = try Store(path: try context.scratch.makeDirectory("parts-device"))
                let f = try BenchClock.measure {
                    let r = try app.sync(device, try Hub(side.url))
                    guard r.bToA.recordsChanged == keys else { throw BenchError("a first sync pulled \(r.bToA.recordsChanged) of \(keys)") }
                }
                sides[i].first.append(Double(f) / 1e3)
                try side.seed.suite("bulk").batch { b in for k in 0..<bulk { try b.set(k, forKey: "run\(run)-\(k)") } }
                let p = try BenchClock.measure {
                    let r = try HubSynchronizer().push(side.seed, side.seedHub)
                    guard r.recordsChanged == bulk else { throw BenchError("a push changed \(r.recordsChanged) of \(bulk) rows") }
                }
                sides[i].push.append(Double(p) / 1e3)
            }
        }
        let scenario = "\(grouped(accounts)) other accounts"
        return sides.flatMap { side in
            [
                Figure(workload: name, scenario: scenario, subject: side.label, metric: "10-change round trip", unit: .microseconds, samples: side.roundTrip),
                Figure(
                    workload: name, scenario: scenario, subject: side.label, metric: "first sync (connect + 20 keys)", unit: .microseconds, samples: side.first),
                Figure(workload: name, scenario: scenario, subject: side.label, metric: "1,000-change push", unit: .microseconds, samples: side.push)
            ]
        }
    }

    /// `accounts` accounts with 20 keys each, pushed through the hub's own push as each account's role.
    private static func populate(_ admin: HubAdmin, adminURL: String, database: String, accounts: Int) throws {
        let session = try PostgresConnection(ConnectionString(adminURL))
        for db in [session, admin.db] { try db.execute("SET synchronous_commit = off") }
        let now = UInt64(Date().timeIntervalSince1970 * 1000) << 16
        for a in 0..<accounts {
            let account = "\(database)_\(a)"
            try admin.addAccount(account, password: "p-\(a)-\(UUID().uuidString.prefix(6))")
            try session.execute("SELECT set_config('role', $1, false)", [.text(account)])
            let hub = try Hub(connection: session, account: account)
            let device = ReplicaID.random()
            let entries = try (0..<keys).map { k in
                RemoteEntry(
                    seq: UInt64(k + 1), suite: "app", key: "key\(k)",
                    record: try Record(version: Version(hlc: now + UInt64(k), replica: device), value: .string("value \(k)")))
            }
            _ = try HubPush.push(
                RemoteBatch(source: device, selection: .all, fromSeq: 0, toSeq: UInt64(keys), entries: entries, knowledge: .none), to: hub,
                pulled: { _ in 0 })
            try session.execute("RESET ROLE")
        }
    }
}
