import Concord
import TestSupport
import Testing

/// The architecture document, "Merge": merge is commutative, associative and idempotent — over records and over whole replica states.
@Suite(.offThePool) struct MergeAlgebraTests {
    static let replicas = (0..<3).map { i in ReplicaID(bytes: [UInt8](repeating: UInt8(i * 40 + 1), count: 15) + [UInt8(i)])! }

    /// A random record: few distinct versions (so ties and equal versions happen), values or tombstones.
    static func record(_ g: inout SeededRandom) -> Record {
        let version = Version(
            hlc: UInt64.random(in: 1...6, using: &g) << 16 | UInt64.random(in: 0...2, using: &g),
            replica: replicas[Int.random(in: 0..<replicas.count, using: &g)])
        if Int.random(in: 0..<4, using: &g) == 0 { return Record(version: version, valueBytes: nil) }
        return try! Record(version: version, value: .int(Int.random(in: 0...3, using: &g)))
    }

    static func state(_ g: inout SeededRandom) -> [SuiteKey: Record] {
        var out: [SuiteKey: Record] = [:]
        for _ in 0..<Int.random(in: 0...6, using: &g) {
            out[SuiteKey(suite: ["a", "b"][Int.random(in: 0...1, using: &g)], key: "k\(Int.random(in: 0...4, using: &g))")] = record(&g)
        }
        return out
    }

    @Test func recordMergeIsCommutativeAssociativeAndIdempotent() {
        let seed: UInt64 = 0x5EED_0001
        var g = SeededRandom(seed: seed)
        for round in 0..<5_000 {
            let a = Self.record(&g)
            let b = Self.record(&g)
            let c = Self.record(&g)
            #expect(RecordMerge.merge(a, b) == RecordMerge.merge(b, a), "seed \(seed) round \(round): commutative")
            #expect(RecordMerge.merge(RecordMerge.merge(a, b), c) == RecordMerge.merge(a, RecordMerge.merge(b, c)), "seed \(seed) round \(round): associative")
            #expect(RecordMerge.merge(a, a) == a, "seed \(seed) round \(round): idempotent")
            let w = RecordMerge.merge(a, b)
            #expect(w == a || w == b)
            #expect(w.version == max(a.version, b.version), "the greater version wins")
        }
    }

    @Test func stateMergeIsCommutativeAssociativeAndIdempotent() {
        let seed: UInt64 = 0x5EED_0002
        var g = SeededRandom(seed: seed)
        for round in 0..<3_000 {
            let a = Self.state(&g)
            let b = Self.state(&g)
            let c = Self.state(&g)
            let ab = RecordMerge.merge(a, b)
            #expect(ab == RecordMerge.merge(b, a), "seed \(seed) round \(round): commutative")
            #expect(RecordMerge.merge(ab, c) == RecordMerge.merge(a, RecordMerge.merge(b, c)), "seed \(seed) round \(round): associative")
            #expect(RecordMerge.merge(a, a) == a, "seed \(seed) round \(round): idempotent")
            #expect(RecordMerge.merge(ab, b) == ab, "seed \(seed) round \(round): absorbing what was merged already")
            #expect(Set(ab.keys) == Set(a.keys).union(b.keys), "no key is lost or invented")
        }
    }

    @Test func aTombstoneIsARecordLikeAnyOther() throws {
        let older = try Record(version: Version(hlc: 10 << 16, replica: Self.replicas[0]), value: .string("x"))
        let delete = Record(version: Version(hlc: 11 << 16, replica: Self.replicas[1]), valueBytes: nil)
        let newer = try Record(version: Version(hlc: 12 << 16, replica: Self.replicas[0]), value: .string("y"))
        #expect(RecordMerge.merge(older, delete) == delete)
        #expect(RecordMerge.merge(delete, newer) == newer)
        #expect(RecordMerge.merge(nil, delete) == delete)
        #expect(RecordMerge.merge(nil, nil) == nil)
    }

    @Test func equalVersionsWithDifferentContentStillOrderDeterministically() throws {
        let v = Version(hlc: 5 << 16, replica: Self.replicas[2])
        let tomb = Record(version: v, valueBytes: nil)
        let one = try Record(version: v, value: .int(1))
        let two = try Record(version: v, value: .int(2))
        #expect(RecordMerge.merge(tomb, one) == one && RecordMerge.merge(one, tomb) == one)
        #expect(RecordMerge.merge(one, two) == RecordMerge.merge(two, one))
    }

    // MARK: - Policy records

    /// Records one key really takes: three replicas that declare, change and disagree about the
    /// key's policy (declarations sync, so its kind flips), write every kind of change — sets of
    /// every type, increments, proposals, set members, removals — and sync at random; and plain
    /// records from a replica that never heard of a policy.
    static func reachableRecords(seed: UInt64) throws -> [Record] {
        let tmp = try TemporaryDirectory("laws")
        defer { tmp.remove() }
        var g = SeededRandom(seed: seed)
        let clock = ManualClock(.seconds(1_700_000_000))
        let stores = try (0..<3).map { try Replicas.open(tmp.path("r\($0)"), clock: clock.read) }
        var pool: [Record] = []
        try stores[0].suite("s").declare([.counter, .max, .min, .set][Int.random(in: 0...3, using: &g)], forKey: "k")
        for _ in 0..<160 {
            clock.advance(.milliseconds(UInt64.random(in: 0...2, using: &g)))
            let r = Int.random(in: 0..<3, using: &g)
            let suite = try stores[r].suite("s")
            do {
                switch Int.random(in: 0..<100, using: &g) {
                case 0..<10: try suite.declare([nil, .lww, .counter, .max, .min, .set][Int.random(in: 0...5, using: &g)], forKey: "k")
                case 10..<25: try suite.set(Int.random(in: -5...20, using: &g), forKey: "k")
                case 25..<31: try suite.set(["a", "b", "c"].filter { _ in Bool.random(using: &g) }, forKey: "k")
                case 31: try suite.set("text", forKey: "k")
                case 32..<50: try suite.increment("k", by: Int.random(in: -2...4, using: &g))
                case 50..<60:
                    let member = ["a", "b", "c", "d"][Int.random(in: 0...3, using: &g)]
                    let adding = Bool.random(using: &g)
                    try suite.update("k", as: [String].self) { $0 = adding ? ($0 ?? []) + [member] : ($0 ?? []).filter { $0 != member } }
                case 60..<65: try suite.remove("k")
                default:
                    let j = (r + Int.random(in: 1...2, using: &g)) % 3
                    try Synchronizer().sync(stores[r], stores[j])
                }
            } catch let error as ConcordError {
                // A change the key's current policy or type does not take: refused, nothing written.
                guard [.policyMismatch, .typeMismatch].contains(code(error)) else { throw error }
            }
            for store in stores { if let record = try store.suite("s").record(forKey: "k") { pool.append(record) } }
            if Int.random(in: 0..<6, using: &g) == 0 { pool.append(Self.record(&g)) } // a plain record from elsewhere
        }
        return pool
    }

    @Test(arguments: (1...8).map { 0x1A7_0000 + UInt64($0) })
    func policyRecordsMergeCommutativelyAssociativelyAndIdempotently(seed: UInt64) throws {
        let pool = try Self.reachableRecords(seed: seed)
        #expect(pool.contains { !$0.isPlain } && pool.contains { $0.isPlain }, "seed \(seed): both kinds of record")
        #expect(Set(pool.map(\.policy)).count >= 3, "seed \(seed): several policies met")
        var g = SeededRandom(seed: seed)
        for round in 0..<3_000 {
            let a = pool[Int.random(in: 0..<pool.count, using: &g)]
            let b = pool[Int.random(in: 0..<pool.count, using: &g)]
            let c = pool[Int.random(in: 0..<pool.count, using: &g)]
            let ab = RecordMerge.merge(a, b)
            #expect(ab == RecordMerge.merge(b, a), "seed \(seed) round \(round): commutative")
            #expect(RecordMerge.merge(ab, c) == RecordMerge.merge(a, RecordMerge.merge(b, c)), "seed \(seed) round \(round): associative")
            #expect(RecordMerge.merge(a, a) == a, "seed \(seed) round \(round): idempotent")
            #expect(RecordMerge.merge(ab, b) == ab, "seed \(seed) round \(round): absorbing what was merged already")
            #expect(ab.version == max(a.version, b.version), "seed \(seed) round \(round): the merge's version is the greater")
            #expect(ab.policy == (a.version < b.version ? b : a).policy, "seed \(seed) round \(round): the newer record's policy reads")
            #expect(try Record.decode(ab.encoded) == ab, "seed \(seed) round \(round): a merged record round-trips its bytes")
            let lost = RecordMerge.overwrite(a, b)
            let lostBack = RecordMerge.overwrite(b, a)
            #expect(lost?.winner == lostBack?.winner && lost?.loser == lostBack?.loser, "seed \(seed) round \(round): an overwrite is the same either way")
            if let lost { #expect(lost.loser.version < lost.winner.version || lost.loser != lost.winner, "seed \(seed) round \(round)") }
        }
    }

    @Test func anLWWRecordNewerThanEverythingInACounterReplacesItsValue() throws {
        let id = Self.replicas
        var counter = PolicyState(policy: .counter)
        try counter.increment(by: 5, at: Version(hlc: 10, replica: id[0]), key: "k")
        try counter.increment(by: 2, at: Version(hlc: 11, replica: id[1]), key: "k")
        let counted = Record(version: Version(hlc: 11, replica: id[1]), state: counter)
        #expect(try counted.value() == .int(7))
        let newer = try Record(version: Version(hlc: 20, replica: id[2]), value: .int(100))
        let merged = RecordMerge.merge(counted, newer)
        #expect(merged.policy == .lww)
        #expect(try merged.value() == .int(100), "a newer lww write reads as written")
        // The counter's parts are kept (nothing is thrown away): an increment after it counts on top of 100.
        var next = try #require(merged.state)
        next.policy = .counter
        try next.increment(by: 1, at: Version(hlc: 21, replica: id[0]), key: "k")
        #expect(try next.value() == .int(108), "the lww writer saw no increments: those it had not seen still add up")
        // An older lww write becomes the counter's base only when it is newer than the base: here there is none.
        let older = try Record(version: Version(hlc: 5, replica: id[2]), value: .int(40))
        #expect(try RecordMerge.merge(counted, older).value() == .int(47), "a key with lww history keeps its value as the counter's base")
    }
}
