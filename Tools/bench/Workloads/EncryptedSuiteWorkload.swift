import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import SplitMix

/// What sealing costs: an encrypted suite against a plain one of the same store, in the same run —
/// typed gets of stored values (each opens a seal), durable single-key sets (each seals), and a hub
/// round trip (a device pushes N records, another pulls them: the hub merges sealed records by
/// version, and the pulling device opens each one before it merges). The hub part needs a
/// PostgreSQL server on this machine, as workload 9 does; without one it is skipped.
enum EncryptedSuiteWorkload: Workload {
    static let name = "encrypted"
    static let title = "Encrypted suite vs plain"
    static let summary = "get and durable set in an encrypted suite vs a plain one (10,000 keys); a hub push + pull of each"

    static let keys = 10_000
    static let plain = "plain suite"
    static let encrypted = "encrypted suite"
    static let readScenario = "get, String, 10,000 keys"
    static let setScenario = "durable set, 10,000 keys"

    static func records(_ context: BenchContext) -> Int { context.pick(quick: 500, full: 5_000) }
    static func hubScenario(_ context: BenchContext) -> String { "hub push + pull, \(grouped(records(context))) records" }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let key = EncryptionKey.generate()
        var options = Store.Options()
        options.suiteKeys["secrets"] = key
        let store = try Store(path: try context.scratch.makeDirectory("encrypted") + "/store", options: options)
        let suites = [plain: try store.suite("prefs"), encrypted: try store.suite("secrets")]
        try suites[encrypted]!.encrypt(with: key)
        for suite in suites.values { try suite.batch { b in for i in 0..<keys { try b.set("value-\(i)-settings", forKey: "key-\(i)") } } }
        var figures = try reads(suites, context) + sets(suites, context)
        figures += try hubRoundTrips(key, context)
        return figures
    }

    private static func reads(_ suites: [String: Suite], _ context: BenchContext) throws -> [Figure] {
        let reads = context.pick(quick: 5_000, full: 50_000)
        context.progress("\(name): \(context.runs) runs of \(grouped(reads)) gets of each suite")
        let samples = try TypedGets.perGet(context, kinds: [plain, encrypted], keys: keys, reads: reads, seed: 22) { kind in
            (suites[kind]!, { "key-\($0)" })
        }
        return [plain, encrypted].map { kind in
            Figure(workload: name, scenario: readScenario, subject: kind, metric: "per get", unit: .nanosecondsPerOperation, samples: samples[kind] ?? [])
        }
    }

    /// Durable sets (the store's default, `.full`): the store is reopened with it.
    private static func sets(_ suites: [String: Suite], _ context: BenchContext) throws -> [Figure] {
        let sets = context.pick(quick: 20, full: 200)
        context.progress("\(name): \(context.runs) runs of \(sets) durable sets in each suite")
        var samples: [String: [Double]] = [:]
        for run in 0..<context.runs {
            var rng = SeededRandom(seed: UInt64(run) &+ 2_200)
            let names = (0..<sets).map { _ in "key-\(rng.next() % UInt64(keys))" }
            for kind in context.rotated([plain, encrypted], run: run) {
                let suite = suites[kind]!
                let elapsed = try BenchClock.measure {
                    for (i, key) in names.enumerated() { try suite.set("new-\(run)-\(i)", forKey: key) }
                }
                samples[kind, default: []].append(Double(elapsed) / Double(sets) / 1000)
            }
        }
        return [plain, encrypted].map { kind in
            Figure(workload: name, scenario: setScenario, subject: kind, metric: "per set", unit: .microseconds, samples: samples[kind] ?? [])
        }
    }

    /// N records of one suite pushed by a device and pulled by another through a fresh hub account,
    /// each device holding the key; the time of both together.
    private static func hubRoundTrips(_ key: EncryptionKey, _ context: BenchContext) throws -> [Figure] {
        let n = records(context)
        let scenario = hubScenario(context)
        let server: ScratchPostgres
        do { server = try ScratchPostgres(durable: true) } catch {
            let reason = "no PostgreSQL server here (\(error))"
            return [plain, encrypted].map {
                .skipped(workload: name, scenario: scenario, subject: $0, metric: "round trip", unit: .microseconds, because: reason)
            }
        }
        defer { server.destroy() }
        try PostgresConnection(ConnectionString(server.url())).execute("CREATE DATABASE bench")
        let adminURL = server.url(database: "bench")
        try HubAdmin(adminURL).initialize()
        var options = Store.Options()
        options.durability = .none // the hub's part is measured; the devices' disks are not
        options.suiteKeys["secrets"] = key
        let runs = context.pick(quick: 2, full: 5)
        context.progress("\(name): \(runs) runs of \(grouped(n)) records pushed and pulled through the hub, each suite")
        var samples: [String: [Double]] = [:]
        for run in 0..<runs {
            for kind in context.rotated([plain, encrypted], run: run) {
                let account = "bench\(run)\(kind == plain ? "p" : "e")"
                let password = "bench-" + UUID().uuidString.prefix(12)
                try HubAdmin(adminURL).addAccount(account, password: String(password))
                let url = server.url(database: "bench", user: account, password: String(password))
                let phone = try Store(path: try context.scratch.makeDirectory("enc-phone"), options: options)
                let suite = try phone.suite(kind == plain ? "prefs" : "secrets")
                if kind == encrypted { try suite.encrypt(with: key) }
                try suite.batch { b in for i in 0..<n { try b.set("value-\(i)-settings", forKey: "key-\(i)") } }
                let laptop = try Store(path: try context.scratch.makeDirectory("enc-laptop"), options: options)
                let (phoneHub, laptopHub) = (try Hub(url), try Hub(url))
                let elapsed = try BenchClock.measure {
                    try HubSynchronizer().push(phone, phoneHub)
                    let pulled = try HubSynchronizer().pull(laptop, laptopHub)
                    guard pulled.recordsChanged >= n else { throw BenchError("pulled \(pulled.recordsChanged) of \(n)") }
                }
                guard try laptop.suite(suite.name).get("key-\(n - 1)", as: String.self) == "value-\(n - 1)-settings" else {
                    throw BenchError("the pulled \(kind) does not read back")
                }
                samples[kind, default: []].append(Double(elapsed) / 1000)
            }
        }
        return [plain, encrypted].map { kind in
            Figure(workload: name, scenario: scenario, subject: kind, metric: "round trip", unit: .microseconds, samples: samples[kind] ?? [])
        }
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        let get = (figures.find(name, readScenario, encrypted, metric: "per get"), figures.find(name, readScenario, plain, metric: "per get"))
        let set = (figures.find(name, setScenario, encrypted, metric: "per set"), figures.find(name, setScenario, plain, metric: "per set"))
        func extra(_ pair: (Figure?, Figure?)) -> Double? {
            guard let a = pair.0?.summary?.median, let b = pair.1?.summary?.median else { return nil }
            return a - b
        }
        return [
            .bound("a get in an encrypted suite costs at most 5 µs more than in a plain one", value: extra(get).map { $0 / 1000 }, limit: 5) {
                String(format: "%.2f µs more", $0) + " (\(Ratio.slowdown(get.0, against: get.1).map(Ratio.format) ?? "—") a plain get's time)"
            },
            .bound(
                "a durable set in an encrypted suite at most 1.1× a plain one's time", value: Ratio.slowdown(set.0, against: set.1), limit: 1.1,
                mark: .slower(set.0, than: set.1, by: 1.1)
            ) { "\(Ratio.format($0)) a plain set's time" + (extra(set).map { String(format: ", %.1f µs more", $0) } ?? "") }
        ]
    }
}
