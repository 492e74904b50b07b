import Concord
import Foundation
import TestSupport
import Testing

/// A world of 3–5 replicas for the policy property tests: random operations on one key, random
/// syncs, one-way pulls and bundles between random pairs, and a model of what each replica has seen
/// (an operation id is known to a replica once a transfer carried the key's record to it: a
/// journal delivers and sends one live entry per key, the key's whole state). With a key, the suite
/// is encrypted: every replica holds the key, and each one's policy state travels as its own sealed
/// contribution, which readers join — the models must hold all the same.
struct PolicyWorld {
    let tmp: TemporaryDirectory
    let stores: [Store]
    let clocks: [ManualClock]
    /// Per replica, the operations whose effect its record holds.
    var known: [Set<Int>]
    var g: SeededRandom
    var transfers = 0
    let suite = "s", key = "k"

    /// The suite's key when it is encrypted.
    let sealedWith: EncryptionKey?

    init(seed: UInt64, policy: MergePolicy, sealedWith key: EncryptionKey? = nil) throws {
        var g = SeededRandom(seed: seed)
        let tmp = try TemporaryDirectory("policy")
        let n = Int.random(in: 3...5, using: &g)
        var clocks: [ManualClock] = []
        for _ in 0..<n { clocks.append(ManualClock(.milliseconds(1_700_000_000_000 + UInt64.random(in: 0...5_000, using: &g)))) }
        (self.g, self.tmp, self.clocks) = (g, tmp, clocks)
        stores = try (0..<n).map { try Replicas.open(tmp.path("r\($0)"), clock: clocks[$0].read, keys: key.map { ["s": $0] } ?? [:]) }
        known = Array(repeating: [], count: n)
        sealedWith = key
        if let key { try stores[0].suite(suite).encrypt(with: key) }
        try stores[0].suite(suite).declare(policy, forKey: self.key)
        // The declaration reaches everyone before the first write (it would anyway with the first sync).
        for i in 1..<n { try Synchronizer().sync(stores[0], stores[i]) }
    }

    var count: Int { stores.count }
    func suite(_ r: Int) throws -> Suite { try stores[r].suite(suite) }

    mutating func tick() { for c in clocks { c.advance(.milliseconds(UInt64.random(in: 0...3, using: &g))) } }

    /// Moves the key between two random replicas: a two-way sync, a one-way pull, or a bundle.
    mutating func transfer() throws {
        let i = Int.random(in: 0..<count, using: &g)
        var j = Int.random(in: 0..<(count - 1), using: &g)
        if j >= i { j += 1 }
        switch Int.random(in: 0..<4, using: &g) {
        case 0, 1:
            try Synchronizer().sync(stores[i], stores[j])
            known[i].formUnion(known[j])
            known[j] = known[i]
        case 2:
            try Synchronizer().pull(from: stores[i], into: stores[j])
            known[j].formUnion(known[i])
        default:
            let path = tmp.path("b\(transfers).bundle")
            let start: ExportStart = Bool.random(using: &g) ? .receivedBy(stores[j]) : .beginning
            try BundleExchange.export(from: stores[i], since: start, to: path)
            try BundleExchange.importBundle(at: path, into: stores[j])
            if Bool.random(using: &g) { try BundleExchange.importBundle(at: path, into: stores[j]) } // twice is harmless
            known[j].formUnion(known[i])
        }
        transfers += 1
    }

    /// Syncs along the chain and back, so every replica holds everything.
    mutating func finish() throws {
        for i in 0..<(count - 1) { try Synchronizer().sync(stores[i], stores[i + 1]) }
        for i in (0..<(count - 1)).reversed() { try Synchronizer().sync(stores[i], stores[i + 1]) }
        let all = known.reduce(into: Set<Int>()) { $0.formUnion($1) }
        known = Array(repeating: all, count: count)
    }

    /// Every replica holds byte-identical records (in an encrypted suite, sealed rows too), sound
    /// stores, and no pair has anything to sync.
    func expectConverged(_ context: String) throws {
        let first = try Replicas.bytes(stores[0])
        let firstRows = try rows(stores[0])
        for (i, store) in stores.enumerated() {
            #expect(try Replicas.bytes(store) == first, "\(context): replica \(i) is not byte-identical to replica 0")
            #expect(try rows(store) == firstRows, "\(context): replica \(i) does not store the rows replica 0 does")
            try Replicas.expectSound(store, context)
        }
        for i in 0..<count {
            for j in (i + 1)..<count {
                #expect(try Synchronizer().sync(stores[i], stores[j], dryRun: true).isInSync, "\(context): \(i) and \(j) still differ")
            }
        }
    }
}

extension PolicyWorld {
    /// The suite's rows as stored (sealed, under row keys, in an encrypted suite): each one's key and bytes.
    func rows(_ store: Store) throws -> [String: [UInt8]] {
        try store.read { r in
            var out: [String: [UInt8]] = [:]
            try r.scanRecords(suite: suite) { _, key, row in
                out[key] = row.record.encoded
                return true
            }
            if sealedWith != nil {
                #expect(
                    out.keys.allSatisfy { !$0.contains(key) } && out.values.allSatisfy { (try? Record.decode($0, validatingValue: false))?.isSealed == true },
                    "only sealed rows under row keys")
            }
            return out
        }
    }
}

@Suite(.offThePool) struct PolicyConvergenceTests {
    static let seeds: [UInt64] = (0..<24).map { 0x90_11C7_0000 + $0 }

    /// The counter against the sum of the acknowledged increments: every increment is counted once,
    /// however often and in whatever order replicas sync, and a set takes back exactly the
    /// increments its replica had seen. Model, at any replica: the newest set it knows of, plus every
    /// increment it knows of that no set it knows of had seen. Checked after every step, and at the end.
    /// Odd seeds only increment: then no conflict is logged, and the value is the sum of every increment.
    /// The seeds the tests run with in the clear, and a few of them with the suite encrypted.
    static let worlds: [(UInt64, Bool)] = seeds.map { ($0, false) } + seeds.prefix(6).map { ($0, true) }

    @Test(arguments: worlds)
    func countersSumEveryAcknowledgedIncrementOnce(seed: UInt64, sealed: Bool) throws {
        var world = try PolicyWorld(seed: seed, policy: .counter, sealedWith: sealed ? .generate() : nil)
        defer { world.tmp.remove() }
        let withSets = seed % 2 == 0
        var amounts: [Int: Int] = [:] // increment id → amount
        var sets: [Int: (version: Version, value: Int, saw: Set<Int>)] = [:] // set id → …
        var ops = 0
        func model(_ known: Set<Int>) -> Int {
            let seenSets = sets.filter { known.contains($0.key) }.values
            let start = seenSets.max { $0.version < $1.version }?.value ?? 0
            return start + amounts.filter { id, _ in known.contains(id) && !seenSets.contains { $0.saw.contains(id) } }.values.reduce(0, +)
        }
        for step in 0..<160 {
            world.tick()
            let r = Int.random(in: 0..<world.count, using: &world.g)
            let before = try world.suite(r).get(world.key, as: Int.self)
            switch Int.random(in: 0..<100, using: &world.g) {
            case 0..<55:
                let amount = Int.random(in: -3...5, using: &world.g)
                #expect(try world.suite(r).increment(world.key, by: amount) == (before ?? 0) + amount, "seed \(seed) step \(step): the increment's result")
                ops += 1
                amounts[ops] = amount
                world.known[r].insert(ops)
            case 55..<60 where withSets:
                let value = Int.random(in: 0...20, using: &world.g)
                let version = try #require(try world.suite(r).set(value, forKey: world.key))
                ops += 1
                sets[ops] = (version, value, world.known[r])
                world.known[r].insert(ops)
            case 60..<65 where before != nil:
                try world.suite(r).update(world.key, as: Int.self) { $0 = $0! + 2 } // an update merges as its difference
                ops += 1
                amounts[ops] = 2
                world.known[r].insert(ops)
            default:
                try world.transfer()
            }
            #expect(try world.suite(r).get(world.key, as: Int.self) ?? 0 == model(world.known[r]), "seed \(seed) step \(step): replica \(r) reads its model")
        }
        try world.finish()
        let expected = model(world.known[0])
        for (i, store) in world.stores.enumerated() {
            #expect(try store.suite(world.suite).get(world.key, as: Int.self) ?? 0 == expected, "seed \(seed): replica \(i) reads the model's sum")
            if sets.isEmpty {
                #expect(try store.conflicts(suite: world.suite).isEmpty, "seed \(seed): concurrent increments are not conflicts")
            }
        }
        if !withSets { #expect(expected == amounts.values.reduce(0, +), "seed \(seed): without sets, the sum of every increment") }
        try world.expectConverged("seed \(seed)")
        #expect(world.transfers > 10 && !amounts.isEmpty)
    }

    /// max and min against every acknowledged proposal. Model, at any replica: the extreme of the
    /// proposals it knows of made after the newest removal it knows of (a proposal that would not
    /// move the value in its replica writes nothing).
    @Test(
        arguments: seeds.prefix(8).flatMap { [($0, MergePolicy.max, false), ($0, MergePolicy.min, false)] }
            + seeds.prefix(2).flatMap {
                [($0, MergePolicy.max, true), ($0, MergePolicy.min, true)]
            })
    func maxAndMinKeepTheExtremeOfWhatWasProposedSinceTheLastRemoval(seed: UInt64, policy: MergePolicy, sealed: Bool) throws {
        var world = try PolicyWorld(seed: seed, policy: policy, sealedWith: sealed ? .generate() : nil)
        defer { world.tmp.remove() }
        var proposals: [Int: (version: Version, value: Int)] = [:]
        var removals: [Int: Version] = [:]
        var ops = 0
        func model(_ known: Set<Int>) -> Int? {
            let cut = removals.filter { known.contains($0.key) }.values.max()
            let alive = proposals.filter { id, p in known.contains(id) && cut.map { p.version > $0 } ?? true }.values.map(\.value)
            return policy == .max ? alive.max() : alive.min()
        }
        for step in 0..<160 {
            world.tick()
            let r = Int.random(in: 0..<world.count, using: &world.g)
            switch Int.random(in: 0..<100, using: &world.g) {
            case 0..<50:
                let value = Int.random(in: -50...50, using: &world.g)
                let before = try world.suite(r).get(world.key, as: Int.self)
                let version = try world.suite(r).set(value, forKey: world.key)
                let moves = before.map { policy == .max ? value > $0 : value < $0 } ?? true
                #expect((version != nil) == moves, "seed \(seed) step \(step): a proposal writes only when it moves the value")
                if let version {
                    ops += 1
                    proposals[ops] = (version, value)
                    world.known[r].insert(ops)
                }
                #expect(try world.suite(r).get(world.key, as: Int.self) == (moves ? value : before), "seed \(seed) step \(step): the value only moves one way")
            case 50..<55:
                if let version = try world.suite(r).remove(world.key) {
                    ops += 1
                    removals[ops] = version
                    world.known[r].insert(ops)
                }
            default:
                try world.transfer()
            }
            #expect(
                try world.suite(r).get(world.key, as: Int.self) == model(world.known[r]), "seed \(seed) \(policy) step \(step): replica \(r) reads its model")
        }
        try world.finish()
        for (i, store) in world.stores.enumerated() {
            #expect(try store.suite(world.suite).get(world.key, as: Int.self) == model(world.known[0]), "seed \(seed) \(policy): replica \(i)")
        }
        try world.expectConverged("seed \(seed) \(policy)")
        #expect(!proposals.isEmpty)
    }

    /// The add-wins set against a model of tagged additions. Model, at any replica: the additions it
    /// knows of that no removal it knows of removed, where a removal — of a member, of the key, or a
    /// `set` of the whole value — removes exactly the additions its replica held then. (An update
    /// merges its difference: adding a member already there changes nothing.)
    @Test(arguments: worlds)
    func setsKeepEveryAdditionNoRemovalHadSeen(seed: UInt64, sealed: Bool) throws {
        var world = try PolicyWorld(seed: seed, policy: .set, sealedWith: sealed ? .generate() : nil)
        defer { world.tmp.remove() }
        let universe = ["a", "b", "c", "d", "e", "f"]
        var adds: [Int: String] = [:] // addition id → member
        var removals: [Int: Set<Int>] = [:] // removal id → the addition ids it removed
        var ops = 0
        func held(_ known: Set<Int>) -> [Int] {
            let gone = removals.filter { known.contains($0.key) }.values.reduce(into: Set<Int>()) { $0.formUnion($1) }
            return adds.keys.filter { known.contains($0) && !gone.contains($0) }
        }
        func model(_ known: Set<Int>) -> [String] { Set(held(known).map { adds[$0]! }).sorted() }
        func removal(at r: Int, _ which: (String) -> Bool) {
            ops += 1
            removals[ops] = Set(held(world.known[r]).filter { which(adds[$0]!) })
            world.known[r].insert(ops)
        }
        for step in 0..<160 {
            world.tick()
            let r = Int.random(in: 0..<world.count, using: &world.g)
            let member = universe[Int.random(in: 0..<universe.count, using: &world.g)]
            switch Int.random(in: 0..<100, using: &world.g) {
            case 0..<40:
                let there = try world.suite(r).get(world.key, as: [String].self)?.contains(member) ?? false
                try world.suite(r).update(world.key, as: [String].self) { $0 = ($0 ?? []) + [member] }
                if !there {
                    ops += 1
                    adds[ops] = member
                    world.known[r].insert(ops)
                }
            case 40..<55:
                try world.suite(r).update(world.key, as: [String].self) { $0 = ($0 ?? []).filter { $0 != member } }
                removal(at: r) { $0 == member }
            case 55..<60:
                let members = Array(universe.shuffled(using: &world.g).prefix(Int.random(in: 0...3, using: &world.g)))
                try world.suite(r).set(members, forKey: world.key)
                removal(at: r) { _ in true }
                for m in members {
                    ops += 1
                    adds[ops] = m
                    world.known[r].insert(ops)
                }
            case 60..<63:
                try world.suite(r).remove(world.key)
                removal(at: r) { _ in true }
            default:
                try world.transfer()
            }
            #expect(
                try world.suite(r).get(world.key, as: [String].self) ?? [] == model(world.known[r]),
                "seed \(seed) step \(step): replica \(r) holds what its model says")
        }
        try world.finish()
        for (i, store) in world.stores.enumerated() {
            #expect(
                try store.suite(world.suite).get(world.key, as: [String].self) ?? [] == model(world.known[0]),
                "seed \(seed): replica \(i) holds every addition no removal saw, in order")
        }
        try world.expectConverged("seed \(seed)")
        #expect(!adds.isEmpty)
    }
}
