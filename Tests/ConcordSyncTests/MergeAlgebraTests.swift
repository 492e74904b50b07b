import Testing
import ConcordStore
import ConcordSync
import TestSupport

/// The architecture document, "Merge": merge is commutative, associative and idempotent — over records and over whole replica states.
@Suite struct MergeAlgebraTests {
    static let replicas = (0..<3).map { i in ReplicaID(bytes: [UInt8](repeating: UInt8(i * 40 + 1), count: 15) + [UInt8(i)])! }

    /// A random record: few distinct versions (so ties and equal versions happen), values or tombstones.
    static func record(_ g: inout SeededGenerator) -> Record {
        let version = Version(hlc: UInt64.random(in: 1...6, using: &g) << 16 | UInt64.random(in: 0...2, using: &g),
                              replica: replicas[Int.random(in: 0..<replicas.count, using: &g)])
        if Int.random(in: 0..<4, using: &g) == 0 { return Record(version: version, valueBytes: nil) }
        return try! Record(version: version, value: .int(Int.random(in: 0...3, using: &g)))
    }

    static func state(_ g: inout SeededGenerator) -> [SuiteKey: Record] {
        var out: [SuiteKey: Record] = [:]
        for _ in 0..<Int.random(in: 0...6, using: &g) {
            out[SuiteKey(suite: ["a", "b"][Int.random(in: 0...1, using: &g)], key: "k\(Int.random(in: 0...4, using: &g))")] = record(&g)
        }
        return out
    }

    @Test func recordMergeIsCommutativeAssociativeAndIdempotent() {
        let seed: UInt64 = 0x5EED_0001
        var g = SeededGenerator(seed: seed)
        for round in 0..<5_000 {
            let a = Self.record(&g), b = Self.record(&g), c = Self.record(&g)
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
        var g = SeededGenerator(seed: seed)
        for round in 0..<3_000 {
            let a = Self.state(&g), b = Self.state(&g), c = Self.state(&g)
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
        let one = try Record(version: v, value: .int(1)), two = try Record(version: v, value: .int(2))
        #expect(RecordMerge.merge(tomb, one) == one && RecordMerge.merge(one, tomb) == one)
        #expect(RecordMerge.merge(one, two) == RecordMerge.merge(two, one))
    }
}
