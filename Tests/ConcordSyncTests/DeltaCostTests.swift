import Concord
import Foundation
import TestSupport
import Testing

/// The architecture document, "Delta sync": The cost of a sync grows with the changes since the last sync, not with the
/// size of the store: merging 100 changes into a 1,000,000-key replica reads and writes about 100 records.
@Suite(.offThePool) struct DeltaCostTests {
    /// The large replica's size.
    static let bigKeys = 1_000_000

    /// Fills `store` with `count` keys of suite "bulk" in one write transaction.
    static func fill(_ store: Store, count: Int) throws {
        try store.write { w in
            for i in 0..<count { try w.set(.int(7), suite: "bulk", key: "key-\(i)") }
        }
    }

    @Test func a100ChangeSyncIntoAMillionKeyReplicaReadsAndWritesAbout100Records() throws {
        let tmp = try TemporaryDirectory("delta")
        defer { tmp.remove() }
        let big = try Replicas.open(tmp.path("big"), mapSize: 1 << 30)
        let small = try Replicas.open(tmp.path("small"))
        try Self.fill(big, count: Self.bigKeys)
        try small.suite("prefs").set(0, forKey: "seed")
        try Synchronizer().pull(from: small, into: big) // the replicas know each other

        for i in 0..<60 { try small.suite("prefs").set(i, forKey: "new-\(i)") }
        for i in 0..<40 { try small.suite("prefs").set(i * 2, forKey: "new-\(i)") } // rewrites: still one live entry per key
        for i in 0..<40 { try small.suite("ui").set(i, forKey: "k\(i)") }
        // 60 + 40 keys changed: 100 journal entries after the cursor (the rewrites superseded the first writes, which a read passes over).
        let report = try Synchronizer().pull(from: small, into: big)
        let read = report.journalEntriesRead
        #expect(read == 100, "journal entries read from the small replica")
        #expect(report.entries == 100)
        #expect(report.recordsRead == 100, "records looked up in the big replica")
        #expect(report.recordsWritten == 100)
        #expect(report.recordsChanged == 100)
        #expect(try big.suite("ui").get("k39", as: Int.self) == 39)
        #expect(try big.lastSeq() == UInt64(Self.bigKeys + 1 + 100))
    }

    /// The same bidirectional sync of 2 × 50 changes costs the same between small replicas and between
    /// replicas ten times larger.
    @Test func theCostOfABidirectionalSyncDoesNotGrowWithTheStore() throws {
        var costs: [[Int]] = []
        for size in [2_000, 20_000] {
            let tmp = try TemporaryDirectory("delta")
            defer { tmp.remove() }
            let a = try Replicas.open(tmp.path("a"), mapSize: 256 << 20)
            let b = try Replicas.open(tmp.path("b"), mapSize: 256 << 20)
            try Self.fill(a, count: size)
            try b.suite("b").set(1, forKey: "hello")
            try Synchronizer().sync(a, b)
            try Synchronizer().sync(a, b) // settles A's copy of B's one change
            for i in 0..<50 {
                try a.suite("bulk").set(i, forKey: "key-\(i * 2)")
                try b.suite("bulk").set(-i, forKey: "key-\(i * 2 + 1)")
            }
            let report = try Synchronizer().sync(a, b)
            #expect(report.aToB.entries == 50 && report.bToA.entries == 50)
            #expect(!report.isInSync)
            #expect(try Replicas.bytes(a) == Replicas.bytes(b))
            costs.append([
                report.journalEntriesRead, report.aToB.recordsRead + report.bToA.recordsRead,
                report.aToB.recordsWritten + report.bToA.recordsWritten
            ])
        }
        #expect(costs[0] == costs[1], "journal entries read, records read, records written at 2,000 and 20,000 keys: \(costs)")
        #expect(costs[0] == [100, 100, 100], "\(costs)")
    }
}
