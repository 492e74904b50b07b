import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// Five replicas doing random sets, deletes, resets and increments, syncing through one hub account
/// in random order, and then concurrently from five processes, converge to last-writer-wins: per key,
/// the write with the greatest version anywhere. The hub is a peer like another directory.
@Suite("Hub convergence", .offThePool)
struct HubConvergenceTests {
    /// Per key, the greatest-versioned record any replica wrote (written independently of RecordMerge).
    struct Model {
        var records: [SuiteKey: Record] = [:]
        mutating func observe(_ key: SuiteKey, _ record: Record?) {
            guard let record else { return }
            if let current = records[key], !(current.version < record.version) { return }
            records[key] = record
        }
    }

    @Test(
        "five replicas in one process, random operations and syncs in random order, small pages, on either table layout",
        arguments: HubLayout.allCases, [UInt64(11), 12, 13])
    func randomOrder(layout: HubLayout, seed: UInt64) throws {
        try randomOrder(layout: layout, seed: seed, suiteKey: nil)
    }

    @Test(
        "five replicas in one process, suite s0 encrypted with a key all of them hold: random sets, deletes and resets converge to last-writer-wins through the hub",
        arguments: HubLayout.allCases, [UInt64(21)])
    func randomOrderEncrypted(layout: HubLayout, seed: UInt64) throws {
        try randomOrder(layout: layout, seed: seed, suiteKey: .generate())
    }

    /// The random run of `randomOrder`; with `suiteKey`, every replica holds it for suite s0 and declares s0
    /// encrypted before its first write (where an increment would go, s0 gets a set: its keys are lww).
    func randomOrder(layout: HubLayout, seed: UInt64, suiteKey: EncryptionKey?) throws {
        let fx = try HubFixture(layout: layout)
        let alice = try fx.account("alice")
        var g = SeededRandom(seed: seed)
        var options = Store.Options()
        if let suiteKey { options.suiteKeys["s0"] = suiteKey }
        let stores = try (0..<5).map { try Store(path: fx.path("r\($0)"), options: options) }
        let hubs = try (0..<5).map { _ in try Hub(alice.url) }
        var model = Model()
        if let suiteKey {
            let declaration = SuiteKey(suite: ReservedSuite.name, key: SealDeclaration.reservedKey(suite: "s0"))
            for store in stores {
                try store.suite("s0").encrypt(with: suiteKey)
                model.observe(declaration, try store.suite(declaration.suite).record(forKey: declaration.key))
            }
        }
        let sync = HubSynchronizer(pageSize: 3)
        for _ in 0..<250 {
            let r = Int.random(in: 0..<5, using: &g)
            let suite = try stores[r].suite(["s0", "s1"][Int.random(in: 0..<2, using: &g)])
            let key = "k\(Int.random(in: 0..<5, using: &g))"
            func observe(_ k: String) throws { model.observe(SuiteKey(suite: suite.name, key: k), try suite.record(forKey: k)) }
            switch Int.random(in: 0..<100, using: &g) {
            case 0..<35:
                try suite.set("v\(Int.random(in: 0..<100, using: &g))", forKey: key)
                try observe(key)
            case 35..<45:
                try suite.remove(key)
                try observe(key)
            case 45..<49:
                try suite.reset()
                for (k, _) in try suite.records() { try observe(k) }
            case 49..<60 where suiteKey != nil && suite.name == "s0":
                try suite.set(Int.random(in: 0..<100, using: &g), forKey: "n" + key)
                try observe("n" + key)
            case 49..<60:
                do { try suite.increment("n" + key) } catch let error as ConcordError where error.code == .typeMismatch { try suite.set(0, forKey: "n" + key) }
                try observe("n" + key)
            case 60..<70: try sync.push(stores[r], hubs[r])
            case 70..<80: try sync.pull(stores[r], hubs[r])
            default: try sync.sync(stores[r], hubs[r])
            }
        }
        for _ in 0..<2 { for r in 0..<5 { try sync.sync(stores[r], hubs[r]) } }
        for r in 0..<5 {
            let held = try contents(stores[r])
            let differing = Set(held.keys).union(model.records.keys).filter { held[$0] != model.records[$0] }
            #expect(
                differing.isEmpty,
                "seed \(seed): replica \(r) differs from the model at \(differing.map { "\($0): \(String(describing: held[$0])) vs \(String(describing: model.records[$0]))" })"
            )
        }
        let fresh = try Store(path: fx.path("fresh"), options: options)
        try sync.sync(fresh, try Hub(alice.url))
        #expect(try contents(fresh) == model.records, "seed \(seed): the hub holds the model")
        if suiteKey != nil {
            let sealed = try fx.admin().execute("SELECT count(*) FILTER (WHERE sealed IS NULL), count(*) FROM concord_hub.records WHERE suite = 's0'")
            #expect(try sealed.int64(0, 0) == 0 && sealed.int64(0, 1) > 0, "every row of s0 on the hub is sealed")
        }
    }

    @Test("five processes at once, each a replica doing random operations and syncs through the hub, on either table layout", arguments: HubLayout.allCases)
    func concurrentProcesses(layout: HubLayout) throws {
        try concurrentProcesses(layout: layout, suiteKey: nil)
    }

    @Test("three processes at once, suite s0 encrypted with a key each is given in a file, random operations and syncs through the hub")
    func concurrentProcessesEncrypted() throws {
        try concurrentProcesses(layout: .plain, replicas: 3, suiteKey: .generate())
    }

    /// The run of `concurrentProcesses` with `replicas` processes; with `suiteKey`, each holds it (from
    /// a key file) for suite s0, declared encrypted.
    func concurrentProcesses(layout: HubLayout, replicas: Int = 5, suiteKey: EncryptionKey?) throws {
        let fx = try HubFixture(layout: layout)
        let alice = try fx.account("alice")
        var keyFile: [String] = []
        if let suiteKey {
            try suiteKey.write(toFile: fx.path("s0.key"))
            keyFile = [fx.path("s0.key")]
        }
        let children = try (0..<replicas).map { i in
            try ChildProcess("concord-test-helper", ["hub-random", fx.path("p\(i)"), alice.url, String(100 + i), "150"] + keyFile)
        }
        var model = Model()
        for (i, child) in children.enumerated() {
            let result = child.wait(timeout: 240)
            #expect(result.status == 0, "process \(i): \(result.stderr)")
            for line in result.lines where line.hasPrefix("W ") {
                let parts = line.split(separator: " ").map(String.init)
                let bytes = stride(from: 0, to: parts[3].count, by: 2).map { o -> UInt8 in
                    let start = parts[3].index(parts[3].startIndex, offsetBy: o)
                    return UInt8(parts[3][start..<parts[3].index(start, offsetBy: 2)], radix: 16)!
                }
                model.observe(SuiteKey(suite: parts[1], key: parts[2]), try Record.decode(bytes))
            }
        }
        var options = Store.Options()
        if let suiteKey { options.suiteKeys["s0"] = suiteKey }
        let stores = try (0..<replicas).map { try Store(path: fx.path("p\($0)"), options: options) }
        let sync = HubSynchronizer()
        for _ in 0..<2 { for s in stores { try sync.sync(s, try Hub(alice.url)) } }
        #expect(!model.records.isEmpty)
        for (i, s) in stores.enumerated() { #expect(try contents(s) == model.records, "replica \(i) differs from the model") }
    }
}
