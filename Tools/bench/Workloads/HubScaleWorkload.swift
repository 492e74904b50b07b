import Concord
import ConcordHub
import Foundation
import ScratchPostgres

/// Workload 10: one local PostgreSQL server holding many accounts (10,000 × 20 keys × 3 devices in a
/// full run). Each account is a role with its own SCRAM password; its three devices push their 20
/// keys through the hub's own push (as that role, under row-level security). Then the time of one
/// account's sync — a new device's first sync, and a 10-change round trip — while the others exist,
/// beside the same on a hub holding that account alone; and the server's rows and bytes.
enum HubScaleWorkload: Workload {
    static let name = "hub-scale"
    static let title = "10 hub scale: many accounts on one server"
    static let summary = "10,000 accounts × 20 keys × 3 devices on one local PostgreSQL; one account's sync among them; rows and bytes"

    static let keys = 20, devices = 3

    static func accounts(_ context: BenchContext) -> Int { context.pick(quick: 200, full: 10_000) }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let n = accounts(context)
        let server: ScratchPostgres
        do { server = try ScratchPostgres(durable: true) } catch {
            return [
                .skipped(
                    workload: name, scenario: "\(grouped(n)) accounts", subject: HubSyncWorkload.hubName, metric: "first sync",
                    unit: .microseconds, because: "no PostgreSQL server here (\(error))")
            ]
        }
        defer { server.destroy() }
        let admin = try PostgresConnection(ConnectionString(server.url()))
        var figures: [Figure] = []
        for (label, count) in [("1 account", 1), ("\(grouped(n)) accounts", n)] {
            let database = count == 1 ? "alone" : "many"
            try admin.execute("CREATE DATABASE \(database)")
            let adminURL = server.url(database: database)
            let hubAdmin = try HubAdmin(adminURL)
            try hubAdmin.initialize()
            context.progress("\(name): \(grouped(count)) accounts × \(keys) keys × \(devices) devices")
            let populated = try BenchClock.measure { try populate(hubAdmin, adminURL: adminURL, database: database, accounts: count, context) }
            if count > 1 { context.progress(String(format: "%@: populated in %.1f s", name, Double(populated) / 1e9)) }
            // The measured account (the last one created: its rows are the newest in every index).
            let password = "measured-\(UUID().uuidString.prefix(8))"
            let measured = "m_\(database)"
            try hubAdmin.addAccount(measured, password: password)
            let url = server.url(database: database, user: measured, password: password)
            let seed = try Store(path: try context.scratch.makeDirectory("scale-seed"))
            try seed.suite("app").batch { b in for k in 0..<keys { try b.set("value \(k)", forKey: "key\(k)") } }
            try HubSynchronizer().sync(seed, try Hub(url))
            var first: [Double] = []
            var roundTrip: [Double] = []
            let runs = context.pick(quick: 5, full: 20)
            let laptop = try Store(path: try context.scratch.makeDirectory("scale-laptop"))
            let seedHub = try Hub(url)
            let laptopHub = try Hub(url)
            for run in 0..<runs {
                let device = try Store(path: try context.scratch.makeDirectory("scale-device"))
                first.append(
                    Double(
                        try BenchClock.measure {
                            let r = try HubSynchronizer().sync(device, try Hub(url))
                            guard r.bToA.recordsChanged == keys else { throw BenchError("a first sync pulled \(r.bToA.recordsChanged) of \(keys)") }
                        }) / 1e3)
                try seed.suite("app").batch { b in for k in 0..<10 { try b.set(run, forKey: "key\(k)") } }
                roundTrip.append(
                    Double(
                        try BenchClock.measure {
                            try HubSynchronizer().sync(seed, seedHub)
                            let r = try HubSynchronizer().sync(laptop, laptopHub)
                            guard run == 0 || r.bToA.recordsChanged == 10 else { throw BenchError("a round trip pulled \(r.bToA.recordsChanged) of 10") }
                        }) / 1e3)
            }
            let subject = HubSyncWorkload.hubName
            figures.append(
                Figure(workload: name, scenario: label, subject: subject, metric: "first sync (connect + 20 keys)", unit: .microseconds, samples: first))
            figures.append(
                Figure(
                    workload: name, scenario: label, subject: subject, metric: "10-change round trip", unit: .microseconds,
                    samples: Array(roundTrip.dropFirst())))
            let stats = try hubAdmin.stats()
            figures.append(Figure(workload: name, scenario: label, subject: subject, metric: "rows", unit: .count, samples: [Double(stats.rows)]))
            figures.append(Figure(workload: name, scenario: label, subject: subject, metric: "hub bytes", unit: .count, samples: [Double(stats.hubBytes)]))
            figures.append(
                Figure(
                    workload: name, scenario: label, subject: subject, metric: "hub bytes per account", unit: .count,
                    samples: [Double(stats.hubBytes) / Double(max(1, stats.accounts))]))
            figures.append(Figure(workload: name, scenario: label, subject: subject, metric: "changes", unit: .count, samples: [Double(stats.changes)]))
        }
        return figures
    }

    /// Creates `accounts` accounts; each one's three devices push the same 20 keys (the last push
    /// wins each key) through `HubPush`, in one admin session that takes each account's role in turn,
    /// so row-level security applies exactly as to the account's own login.
    private static func populate(_ admin: HubAdmin, adminURL: String, database: String, accounts: Int, _ context: BenchContext) throws {
        let session = try PostgresConnection(ConnectionString(adminURL))
        // Filling is not what is measured: its commits need not wait for the WAL flush (the measured
        // syncs below use their own connections, with PostgreSQL's default durability).
        for db in [session, admin.db] { try db.execute("SET synchronous_commit = off") }
        let now = UInt64(Date().timeIntervalSince1970 * 1000) << 16
        for a in 0..<accounts {
            let account = "\(database)_\(a)"
            try admin.addAccount(account, password: "p-\(a)-\(UUID().uuidString.prefix(6))")
            try session.execute("SELECT set_config('role', $1, false)", [.text(account)])
            let hub = try Hub(connection: session, account: account)
            for d in 0..<devices {
                let device = ReplicaID.random()
                let entries = try (0..<keys).map { k in
                    RemoteEntry(
                        seq: UInt64(k + 1), suite: "app", key: "key\(k)",
                        record: try Record(version: Version(hlc: now + UInt64(d * 100 + k), replica: device), value: .string("value \(k) from \(d)")))
                }
                let batch = RemoteBatch(source: device, selection: .all, fromSeq: 0, toSeq: UInt64(keys), entries: entries, knowledge: .none)
                _ = try HubPush.push(batch, to: hub, pulled: { _ in 0 })
            }
            try session.execute("RESET ROLE")
            if a > 0 && a % 1000 == 0 { context.progress("\(name): \(grouped(a)) accounts") }
        }
    }
}
