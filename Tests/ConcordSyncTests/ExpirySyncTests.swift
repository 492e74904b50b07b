import Concord
import Foundation
import TestSupport
import Testing

/// Values that expire, across replicas: the expiry travels in the record, every replica reads the key
/// as absent after it (one that received it before it expired included), merges stay deterministic
/// (the expiry never decides which record wins), and tombstone collection drops an expired value
/// like a deletion.
@Suite(.offThePool) struct ExpirySyncTests {
    static let start: UInt64 = 1_800_000_000_000
    static let day: UInt64 = 86_400_000

    @Test func aValueReceivedBeforeItExpiredReadsAsAbsentEverywhereAfter() throws {
        let tmp = try TemporaryDirectory("expiry")
        defer { tmp.remove() }
        let clock = ManualClock(.milliseconds(Self.start))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        let c = try Replicas.open(tmp.path("c"), clock: clock.read)
        try a.suite("s").set("token", forKey: "session", expiresAfter: .seconds(60))
        try Synchronizer().sync(a, b)
        // C gets it by a bundle, as another transport would carry it.
        let bundle = tmp.path("b.concord")
        try BundleExchange.export(from: b, since: .beginning, to: bundle)
        try BundleExchange.importBundle(at: bundle, into: c)
        for store in [a, b, c] {
            #expect(try store.suite("s").get("session", as: String.self) == "token", "\(store.directory)")
            #expect(try store.suite("s").record(forKey: "session")?.expiresAtMilliseconds == Self.start + 60_000)
        }
        #expect(try Replicas.bytes(a) == Replicas.bytes(b) && Replicas.bytes(b) == Replicas.bytes(c))
        clock.advance(.milliseconds(60_000))
        for store in [a, b, c] {
            #expect(try store.suite("s").get("session", as: String.self) == nil, "\(store.directory)")
            #expect(try store.suite("s").keys().isEmpty)
        }
        try Synchronizer().sync(a, c)
        #expect(try Replicas.bytes(a) == Replicas.bytes(c), "an expired record syncs like any other, unchanged")
    }

    @Test func anExpiredValueStillBeatsAnOlderOneSoNothingComesBack() throws {
        let tmp = try TemporaryDirectory("expiry")
        defer { tmp.remove() }
        let clock = ManualClock(.milliseconds(Self.start))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        try b.suite("s").set("old", forKey: "k")
        clock.advance(.milliseconds(10))
        try a.suite("s").set("newer", forKey: "k", expiresAfter: .seconds(1))
        clock.advance(.milliseconds(5_000)) // expired before the replicas ever meet
        try Synchronizer().sync(a, b)
        for store in [a, b] { #expect(try store.suite("s").get("k", as: String.self) == nil, "\(store.directory): the old value must not come back") }
        #expect(try Replicas.bytes(a) == Replicas.bytes(b))

        // A later write wins over the expired one wherever it was written; an expiry never decides a merge.
        clock.advance(.milliseconds(10))
        try b.suite("s").set("latest", forKey: "k")
        try Synchronizer().sync(a, b)
        for store in [a, b] { #expect(try store.suite("s").get("k", as: String.self) == "latest") }
    }

    @Test func mergesOfExpiringRecordsFollowTheMergeLaws() throws {
        let r1 = ReplicaID(bytes: [UInt8](repeating: 1, count: 16))!
        let r2 = ReplicaID(bytes: [UInt8](repeating: 2, count: 16))!
        let v = try ValueCodec.encode(.string("v"))
        let records = [
            Record(version: Version(hlc: 10 << 16, replica: r1), valueBytes: v, expiryMilliseconds: 20),
            Record(version: Version(hlc: 10 << 16, replica: r1), valueBytes: v, expiryMilliseconds: 30), // a forged twin
            Record(version: Version(hlc: 10 << 16, replica: r1), valueBytes: v),
            Record(version: Version(hlc: 10 << 16, replica: r2), valueBytes: v, expiryMilliseconds: 5),
            Record(version: Version(hlc: 11 << 16, replica: r1), valueBytes: nil),
            Record(version: Version(hlc: 9 << 16, replica: r2), state: PolicyState(policy: .counter))
        ]
        for x in records {
            for y in records {
                #expect(RecordMerge.merge(x, y) == RecordMerge.merge(y, x), "commutative: \(x) \(y)")
                #expect(RecordMerge.merge(x, x) == x)
                for z in records {
                    #expect(RecordMerge.merge(RecordMerge.merge(x, y), z) == RecordMerge.merge(x, RecordMerge.merge(y, z)), "associative")
                }
            }
        }
        // Versions decide; the expiry only orders a forged twin of one version.
        #expect(RecordMerge.merge(records[3], records[0]) == records[3], "r2 beats r1 at the same hlc, expiring sooner or not")
        // Joined into a policy state, an expiring value keeps its expiry as the base's.
        let joined = RecordMerge.merge(records[3], records[5])
        #expect(joined.expiresAtMilliseconds == 5)
        #expect(try joined.value(at: 4) == .string("v") && joined.value(at: 5) == nil)
    }

    @Test func tombstoneCollectionDropsAnExpiredValueLikeADeletion() throws {
        let tmp = try TemporaryDirectory("expiry")
        defer { tmp.remove() }
        let clock = ManualClock(.milliseconds(Self.start))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        try a.suite("s").set("v", forKey: "gone", expiresAfter: .seconds(3600))
        try a.suite("s").set("v", forKey: "kept")
        try Synchronizer().sync(a, b)
        clock.advance(.milliseconds(29 * Self.day))
        #expect(try a.collectTombstones().collected == 0)
        clock.advance(.milliseconds(Self.day + 3_600_000)) // 30 days after the expiry, not after the write
        let report = try a.collectTombstones()
        #expect(report.collected == 1 && report.removed.map(\.key) == ["gone"], "\(report)")
        #expect(report.removed.first?.deletedMilliseconds == Self.start + 3_600_000, "retention counts from the expiry")
        #expect(try a.suite("s").record(forKey: "gone") == nil)
        #expect(try a.read { try $0.expiries(after: 0, upTo: .max).expired }.isEmpty, "its index entry went with it")
        try Replicas.expectSound(a)
        // A peer that has not merged it holds it back, as for a tombstone.
        let c = try Replicas.open(tmp.path("c"), clock: clock.read)
        try b.suite("s").set("v", forKey: "late", expiresAfter: .seconds(1))
        try Synchronizer().sync(b, c)
        try b.suite("s").set("w", forKey: "later", expiresAfter: .seconds(1))
        clock.advance(.milliseconds(31 * Self.day))
        let atB = try b.collectTombstones()
        #expect(atB.heldBackByPeer[c.replicaID] == 1, "\(atB)")
    }

    @Test func theGateRefusesExpiriesNoClockProduces() throws {
        let gate = RecordGate(maxValueBytes: 1 << 20)
        let v = try ValueCodec.encode(.int(1))
        let id = ReplicaID(bytes: [UInt8](repeating: 7, count: 16))!
        for expiry: UInt64 in [0, HybridClock.maxMilliseconds + 1, .max] {
            let record = Record(version: Version(hlc: 1 << 16, replica: id), valueBytes: v, expiryMilliseconds: expiry)
            let refused = gate.refusal(suite: "s", key: "k", seq: 1, record: record)
            #expect(refused?.refusal == .version && refused?.message.contains("expiry") == true, "\(expiry): \(String(describing: refused))")
        }
        let sound = Record(version: Version(hlc: 1 << 16, replica: id), valueBytes: v, expiryMilliseconds: HybridClock.maxMilliseconds)
        #expect(gate.refusal(suite: "s", key: "k", seq: 1, record: sound) == nil)
    }
}
