import Concord
import Foundation
import TestSupport
import Testing

/// The straightforward model of last-writer-wins: every write ever made, and per key the one with
/// the greatest version. Written independently of `RecordMerge`.
struct LastWriterWinsModel {
    private(set) var records: [SuiteKey: Record] = [:]

    mutating func observe(_ key: SuiteKey, _ record: Record?) {
        guard let record else { return }
        if let current = records[key], !(current.version < record.version) { return }
        records[key] = record
    }
}

/// Property-based convergence (the architecture document, "Merge" and "Delta sync"): 3–5 replicas take random writes,
/// deletes and resets on shared and separate keys, random pairs sync in random order — some syncs
/// repeated, some interrupted between their two directions, some syncing processes killed at a
/// random moment — and wall clocks that drift and jump back. After a final full round
/// every replica holds byte-identical records, equal to the model. Each failure names its seed.
@Suite(.offThePool) struct ConvergenceTests {
    static let seeds: [UInt64] = (0..<24).map { 0xC0_4C0D_0000 + $0 }
    static let base: UInt64 = 1_700_000_000_000

    @Test(arguments: seeds)
    func replicasConvergeToLastWriterWins(seed: UInt64) throws {
        let tmp = try TemporaryDirectory("converge")
        defer { tmp.remove() }
        var g = SeededRandom(seed: seed)
        let n = Int.random(in: 3...5, using: &g)
        let clocks = (0..<n).map { _ in ManualClock(.milliseconds(Self.base + UInt64.random(in: 0...60_000, using: &g))) }
        let paths = (0..<n).map { tmp.path("r\($0)") }
        let stores = try (0..<n).map { try Replicas.open(paths[$0], clock: clocks[$0].read) }
        let suites = ["s0", "s1"]
        var model = LastWriterWinsModel()
        var killed = 0
        var interrupted = 0
        var syncs = 0

        func observe(_ store: Store, _ suite: String, _ key: String) throws {
            model.observe(SuiteKey(suite: suite, key: key), try store.suite(suite).record(forKey: key))
        }
        func pair() -> (Int, Int) {
            let i = Int.random(in: 0..<n, using: &g)
            var j = Int.random(in: 0..<(n - 1), using: &g)
            if j >= i { j += 1 }
            return (i, j)
        }

        for step in 0..<150 {
            for c in clocks { c.advance(.milliseconds(UInt64.random(in: 0...20, using: &g))) }
            if Int.random(in: 0..<100, using: &g) < 3 {
                clocks[Int.random(in: 0..<n, using: &g)].rewind(.milliseconds(UInt64.random(in: 1...120_000, using: &g)))
            }
            let r = Int.random(in: 0..<n, using: &g)
            let suite = suites[Int.random(in: 0..<2, using: &g)]
            // Keys k0–k3 are shared by everyone; k-r-* are written by one replica only.
            let key = Bool.random(using: &g) ? "k\(Int.random(in: 0...3, using: &g))" : "k-\(r)-\(Int.random(in: 0...2, using: &g))"
            let op = Int.random(in: 0..<100, using: &g)
            let context = "seed \(seed) step \(step)"
            switch op {
            case 0..<40:
                let before = try stores[r].suite(suite).record(forKey: key)
                try stores[r].suite(suite).set(Int.random(in: 0...999, using: &g), forKey: key)
                let written = try #require(try stores[r].suite(suite).record(forKey: key))
                if let before { #expect(written.version > before.version, "\(context): a local write wins over what its replica held") }
                try observe(stores[r], suite, key)
            case 40..<55:
                try stores[r].suite(suite).remove(key)
                try observe(stores[r], suite, key)
            case 55..<60:
                try stores[r].suite(suite).reset()
                for (k, record) in try stores[r].suite(suite).records() { model.observe(SuiteKey(suite: suite, key: k), record) }
            case 60..<90:
                let (i, j) = pair()
                try Synchronizer().sync(stores[i], stores[j])
                syncs += 1
                if Int.random(in: 0..<5, using: &g) == 0 {
                    let again = try Synchronizer().sync(stores[j], stores[i])
                    #expect(again.isInSync, "\(context): a repeated sync found changes")
                }
            case 90..<95:
                // A sync killed between its two directions: one batch merged, the other never sent.
                let (i, j) = pair()
                try Synchronizer().pull(from: stores[i], into: stores[j])
                interrupted += 1
            default:
                // A sync in another process, killed at a random moment (before, during or after its transactions).
                // The child says when it runs, so the kill never races the process's own start.
                guard killed < 2 else { continue }
                let (i, j) = pair()
                let child = try ChildProcess("concord-test-helper", ["sync-once", paths[i], paths[j]])
                #expect(child.waitForLine { $0 == "started" }, "\(context): the syncing process did not start")
                usleep(UInt32.random(in: 0...15_000, using: &g))
                child.kill()
                let result = child.wait()
                #expect(result.status == 0 || result.status == SIGKILL, "\(context): the killed sync failed: \(result.status) \(result.stderr)")
                killed += 1
            }
        }

        // The final full round: along the chain and back, so every change reaches everyone.
        for i in 0..<(n - 1) { try Synchronizer().sync(stores[i], stores[i + 1]) }
        for i in (0..<(n - 1)).reversed() { try Synchronizer().sync(stores[i], stores[i + 1]) }

        let first = try Replicas.bytes(stores[0])
        for (i, store) in stores.enumerated() {
            #expect(try Replicas.dump(store) == model.records, "seed \(seed): replica \(i) differs from the last-writer-wins model")
            #expect(try Replicas.bytes(store) == first, "seed \(seed): replica \(i) is not byte-identical to replica 0")
            try Replicas.expectSound(store, "seed \(seed)")
        }
        for i in 0..<n {
            for j in (i + 1)..<n {
                #expect(try Synchronizer().sync(stores[i], stores[j], dryRun: true).isInSync, "seed \(seed): \(i) and \(j) still differ")
            }
        }
        #expect(syncs > 0 && !model.records.isEmpty, "seed \(seed): the scenario exercised nothing")
    }
}
