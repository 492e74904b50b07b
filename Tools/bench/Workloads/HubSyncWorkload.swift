import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import Synchronization

/// Workload 9: sync through a PostgreSQL hub (a scratch server on this machine, PostgreSQL's default
/// durability), beside local sync of the same changes between two directories in the same run:
/// push and pull throughput in changes per second, a 100-change delta round trip device → hub →
/// device, and live propagation (LISTEN/NOTIFY) device → hub → device over 1,000 changes.
enum HubSyncWorkload: Workload {
    static let name = "hub"
    static let title = "9 hub: sync through PostgreSQL"
    static let summary = "push and pull through a PostgreSQL hub beside local sync; a 100-change round trip; live propagation p50/p99"

    static let hubName = "Concord via hub"
    static let localName = "Concord local sync"

    static func changes(_ context: BenchContext) -> Int { context.pick(quick: 2_000, full: 20_000) }
    static func liveChanges(_ context: BenchContext) -> Int { context.pick(quick: 100, full: 1_000) }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let n = changes(context)
        let runs = context.pick(quick: 1, full: 3)
        let server: ScratchPostgres
        do { server = try ScratchPostgres(durable: true) } catch {
            let reason = "no PostgreSQL server here (\(error))"
            return [.skipped(workload: name, scenario: "\(grouped(n)) changes", subject: hubName, metric: "push", unit: .operationsPerSecond, because: reason)]
        }
        defer { server.destroy() }
        let admin = try PostgresConnection(ConnectionString(server.url()))
        try admin.execute("CREATE DATABASE bench")
        let adminURL = server.url(database: "bench")
        try HubAdmin(adminURL).initialize()
        var accounts = 0
        func newAccount() throws -> String {
            accounts += 1
            let password = "bench-\(accounts)-\(UUID().uuidString.prefix(8))"
            try HubAdmin(adminURL).addAccount("bench\(accounts)", password: password)
            return server.url(database: "bench", user: "bench\(accounts)", password: password)
        }

        // 1. Throughput: n changes pushed into an empty account, then pulled by a new device; local sync beside.
        context.progress("\(name): pushing and pulling \(grouped(n)) changes through the hub and locally, \(runs) runs")
        var push: [Double] = []
        var pull: [Double] = []
        var localPull: [Double] = []
        for _ in 0..<runs {
            let url = try newAccount()
            let phone = try Store(path: try context.scratch.makeDirectory("hub-phone"))
            try fill(phone, count: n)
            let hub = try Hub(url)
            let pushTime = try BenchClock.measure {
                let r = try HubSynchronizer().push(phone, hub)
                guard r.recordsChanged == n else { throw BenchError("pushed \(r.recordsChanged) of \(n)") }
            }
            push.append(Double(n) / (Double(pushTime) / 1e9))
            let laptop = try Store(path: try context.scratch.makeDirectory("hub-laptop"))
            let laptopHub = try Hub(url)
            let pullTime = try BenchClock.measure {
                let r = try HubSynchronizer().pull(laptop, laptopHub)
                guard r.recordsChanged == n else { throw BenchError("pulled \(r.recordsChanged) of \(n)") }
            }
            pull.append(Double(n) / (Double(pullTime) / 1e9))
            let local = try Store(path: try context.scratch.makeDirectory("hub-local"))
            let localTime = try BenchClock.measure {
                let r = try Synchronizer().pull(from: phone, into: local)
                guard r.recordsChanged == n else { throw BenchError("merged \(r.recordsChanged) of \(n)") }
            }
            localPull.append(Double(n) / (Double(localTime) / 1e9))
        }
        let scenario = "\(grouped(n)) changes"
        var figures = [
            Figure(workload: name, scenario: scenario, subject: hubName, metric: "push", unit: .operationsPerSecond, samples: push),
            Figure(workload: name, scenario: scenario, subject: hubName, metric: "pull", unit: .operationsPerSecond, samples: pull),
            Figure(workload: name, scenario: scenario, subject: localName, metric: "pull", unit: .operationsPerSecond, samples: localPull)
        ]

        // 2. A 100-change delta round trip: the phone changes 100 keys and syncs; the laptop syncs and has them.
        let rounds = context.pick(quick: 10, full: 50)
        context.progress("\(name): \(rounds) round trips of a 100-change delta")
        let url = try newAccount()
        let phone = try Store(path: try context.scratch.makeDirectory("rt-phone"))
        let laptop = try Store(path: try context.scratch.makeDirectory("rt-laptop"))
        let local = try Store(path: try context.scratch.makeDirectory("rt-local"))
        let phoneHub = try Hub(url)
        let laptopHub = try Hub(url)
        try fill(phone, count: 1000)
        try HubSynchronizer().sync(phone, phoneHub)
        try HubSynchronizer().sync(laptop, laptopHub)
        try Synchronizer().sync(phone, local)
        var roundTrip: [Double] = []
        var localRoundTrip: [Double] = []
        for round in 0..<rounds {
            try phone.suite("app").batch { b in for k in 0..<100 { try b.set(round, forKey: "k\(k * 7)") } }
            let t = try BenchClock.measure {
                let up = try HubSynchronizer().sync(phone, phoneHub)
                let down = try HubSynchronizer().sync(laptop, laptopHub)
                guard up.aToB.recordsChanged == 100, down.bToA.recordsChanged == 100 else {
                    throw BenchError("round trip moved \(up.aToB.recordsChanged) up and \(down.bToA.recordsChanged) down")
                }
            }
            roundTrip.append(Double(t) / 1e3)
            let tl = try BenchClock.measure {
                let r = try Synchronizer().sync(phone, local)
                guard r.aToB.recordsChanged == 100 else { throw BenchError("local round trip moved \(r.aToB.recordsChanged)") }
            }
            localRoundTrip.append(Double(tl) / 1e3)
        }
        figures.append(
            Figure(
                workload: name, scenario: "100-change delta round trip", subject: hubName, metric: "device → hub → device", unit: .microseconds,
                samples: roundTrip))
        figures.append(
            Figure(
                workload: name, scenario: "100-change delta round trip", subject: localName, metric: "device → device", unit: .microseconds,
                samples: localRoundTrip))

        // 3. Live propagation: LISTEN/NOTIFY sessions on two devices; one change at a time.
        let live = liveChanges(context)
        context.progress("\(name): live propagation of \(live) changes")
        figures += try propagation(url: try newAccount(), changes: live, context)
        return figures
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        let rtFigure = figures.find(name, "100-change delta round trip", hubName, metric: "device → hub → device")
        let p50Figure = figures.figures.first { $0.workload == name && $0.metric == "live p50" }
        let rt = rtFigure?.summary?.median
        let p50 = p50Figure?.summary?.median
        return [
            .bound(
                "a 100-change delta round trip through the hub under 20 ms", value: rt.map { $0 / 1000 }, limit: 20, strictly: true,
                mark: .at(rtFigure, 20_000)
            ) {
                String(format: "%.2f ms", $0)
            },
            .bound(
                "live propagation device → hub → device p50 under 30 ms", value: p50.map { $0 / 1000 }, limit: 30, strictly: true,
                mark: .at(p50Figure, 30_000)
            ) {
                String(format: "%.2f ms", $0)
            }
        ]
    }

    /// Sets one key on the phone at a time and waits until the watch's observer sees it.
    private static func propagation(url: String, changes: Int, _ context: BenchContext) throws -> [Figure] {
        let phone = try Store(path: try context.scratch.makeDirectory("live-phone"))
        let watch = try Store(path: try context.scratch.makeDirectory("live-watch"))
        let seen = Arrivals()
        let token = try watch.suite("live").changes(for: "tick").start { change in
            if case .int(let i)? = change.value { seen.record(Int(i), at: BenchClock.now()) }
        }
        defer { token.cancel() }
        let a = try LiveSync(store: phone) { try HubLivePeer(store: phone, url: url) }
        let b = try LiveSync(store: watch) { try HubLivePeer(store: watch, url: url) }
        defer {
            a.stop()
            b.stop()
        }
        let suite = try phone.suite("live")
        try suite.set(-1, forKey: "tick")
        guard wait(for: -1, in: seen, seconds: 30) else { throw BenchError("live sync did not start") }
        var latencies: [Double] = []
        for i in 0..<changes {
            let started = BenchClock.now()
            try suite.set(i, forKey: "tick")
            guard wait(for: i, in: seen, seconds: 10) else { throw BenchError("change \(i) did not arrive within 10 s") }
            latencies.append(Double(seen.time(of: i)! - started) / 1e3)
        }
        let p = Percentiles(latencies)
        let scenario = "\(grouped(changes)) changes, one at a time"
        return [
            Figure(workload: name, scenario: scenario, subject: hubName, metric: "live p50", unit: .microseconds, samples: [p.value(at: 50)]),
            Figure(workload: name, scenario: scenario, subject: hubName, metric: "live p99", unit: .microseconds, samples: [p.value(at: 99)])
        ]
    }

    /// When each value arrived on the watch (the observer's clock reading).
    final class Arrivals: Sendable {
        private let times = Mutex<[Int: UInt64]>([:])
        func record(_ i: Int, at t: UInt64) { times.withLock { $0[i] = t } }
        func time(of i: Int) -> UInt64? { times.withLock { $0[i] } }
    }

    private static func wait(for i: Int, in seen: Arrivals, seconds: Double) -> Bool {
        let deadline = BenchClock.now() + UInt64(seconds * 1e9)
        while BenchClock.now() < deadline {
            if seen.time(of: i) != nil { return true }
            usleep(50)
        }
        return false
    }

    static func fill(_ store: Store, count: Int) throws {
        let suite = try store.suite("app")
        var i = 0
        while i < count {
            let end = min(count, i + 10_000)
            try suite.batch { b in for k in i..<end { try b.set("value-\(k)", forKey: "k\(k)") } }
            i = end
        }
    }
}
