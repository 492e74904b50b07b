import Concord
import TestSupport
import Testing

/// The architecture document, "Tombstones": a tombstone may be dropped only after every known peer has merged past it and a
/// retention period (default 30 days) has passed; never earlier.
@Suite(.offThePool) struct TombstoneCollectionTests {
    static let start: UInt64 = 1_800_000_000_000
    static let day: UInt64 = 24 * 3_600_000

    @Test func theDefaultRetentionIsThirtyDays() {
        #expect(Store.defaultTombstoneRetention == .milliseconds(30 * Self.day))
    }

    @Test func aTombstoneWaitsForTheRetentionPeriodAndForEveryKnownPeer() throws {
        let tmp = try TemporaryDirectory("tombstones")
        defer { tmp.remove() }
        let clock = ManualClock(.milliseconds(Self.start))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        let c = try Replicas.open(tmp.path("c"), clock: clock.read)
        try a.suite("s").set("old", forKey: "k")
        try Synchronizer().sync(a, b)
        try Synchronizer().sync(b, c) // A <-> B <-> C; then C goes away
        clock.advance(.milliseconds(1000))
        try a.suite("s").remove("k")
        try Synchronizer().sync(a, b)

        clock.advance(.milliseconds(29 * Self.day))
        for store in [a, b] {
            let report = try store.collectTombstones()
            #expect(report.tombstones == 1 && report.collected == 0 && report.keptForRetention == 1, "\(report)")
        }
        clock.advance(.milliseconds(2 * Self.day)) // 31 days after the delete
        let atA = try a.collectTombstones()
        #expect(atA.collected == 1, "A's only peer, B, has merged the delete: \(atA)")
        let atB = try b.collectTombstones()
        #expect(atB.collected == 0 && atB.keptForPeers == 1, "C, a known peer of B, has not merged it: \(atB)")
        #expect(try b.suite("s").record(forKey: "k")?.isTombstone == true)
        try Replicas.expectSound(a)

        // C comes back with the old value; the delete reaches it and nothing comes back to life.
        try Synchronizer().sync(b, c)
        try Synchronizer().sync(a, b)
        for store in [a, b, c] { #expect(try store.suite("s").contains("k") == false, "\(store.directory)") }
        #expect(try a.suite("s").record(forKey: "k") == nil, "A's tombstone stays collected: B does not send A's own delete back")
        #expect(try b.collectTombstones().collected == 1, "now every peer of B has merged it")
        #expect(try c.collectTombstones().collected == 1)
        for store in [a, b, c] { try Replicas.expectSound(store) }
    }

    @Test func aReplicaBackFromALongAbsenceDoesNotResurrectADeletedKeyWithinRetention() throws {
        let tmp = try TemporaryDirectory("tombstones")
        defer { tmp.remove() }
        let clock = ManualClock(.milliseconds(Self.start))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        let c = try Replicas.open(tmp.path("c"), clock: clock.read)
        // B wrote the key; it reached A through C, so A does not know B.
        try b.suite("s").set("from b", forKey: "k")
        try Synchronizer().sync(b, c)
        try Synchronizer().sync(c, a)
        // B goes away for 29 days; meanwhile A deletes the key and collects what it may, every day.
        clock.advance(.milliseconds(1000))
        try a.suite("s").remove("k")
        try Synchronizer().sync(a, c)
        for _ in 0..<29 {
            clock.advance(.milliseconds(Self.day))
            #expect(try a.collectTombstones().collected == 0)
            #expect(try c.collectTombstones().collected == 0)
        }
        // B returns: it sends A everything it has (a bundle, as if by mail), and syncs with C.
        let bundle = try BundleExchange.makeBundle(from: b, since: .beginning).bundle
        let imported = try BatchApplier(store: a).apply(bundle.batch)
        #expect(imported.recordsChanged == 0, "B's old value loses to A's tombstone")
        try Synchronizer().sync(b, c)
        try Synchronizer().sync(c, a)
        for store in [a, b, c] {
            #expect(try store.suite("s").contains("k") == false, "resurrected in \(store.directory)")
            #expect(try store.suite("s").record(forKey: "k")?.isTombstone == true)
        }
    }

    @Test func aPeerThatNeverReturnsHoldsTombstonesUntilForgotten() throws {
        let tmp = try TemporaryDirectory("tombstones")
        defer { tmp.remove() }
        let clock = ManualClock(.milliseconds(Self.start))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        try a.suite("s").set(1, forKey: "k")
        try Synchronizer().sync(a, b)
        try a.suite("s").remove("k")
        clock.advance(.milliseconds(365 * Self.day))
        #expect(try a.collectTombstones().keptForPeers == 1, "B never merged the delete")
        #expect(try a.forgetPeer(b.replicaID) == 1)
        #expect(try a.collectTombstones().collected == 1)
        #expect(try a.journalEntries(after: 0).isEmpty, "the journal entry went with the record")
        try Replicas.expectSound(a)
    }

    @Test func aShorterRetentionCanBeChosen() throws {
        let tmp = try TemporaryDirectory("tombstones")
        defer { tmp.remove() }
        let clock = ManualClock(.milliseconds(Self.start))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        try a.suite("s").set(1, forKey: "k")
        try a.suite("s").set(2, forKey: "live")
        try a.suite("s").remove("k")
        clock.advance(.milliseconds(Self.day))
        #expect(try a.collectTombstones().collected == 0)
        #expect(try a.collectTombstones(retention: .milliseconds(Self.day / 2)).collected == 1, "no peers, half a day is enough")
        #expect(try a.suite("s").keys() == ["live"], "values are never collected")
    }
}
