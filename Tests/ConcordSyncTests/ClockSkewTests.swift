import Concord
import TestSupport
import Testing

/// The architecture document, "Versions and the clock": A remote version beyond the drift bound is merged (convergence first) and reported;
/// versions stay ordered when a wall clock runs ahead or goes backwards.
@Suite(.offThePool) struct ClockSkewTests {
    static let start: UInt64 = 1_800_000_000_000
    static let hour: UInt64 = 3_600_000

    @Test func aReplicaAnHourAheadIsMergedAndReportedAsSkew() throws {
        let tmp = try TemporaryDirectory("skew")
        defer { tmp.remove() }
        let real = ManualClock(.milliseconds(Self.start))
        let ahead = ManualClock(.milliseconds(Self.start + Self.hour))
        let a = try Replicas.open(tmp.path("a"), clock: real.read)
        let b = try Replicas.open(tmp.path("b"), clock: ahead.read)
        try a.suite("s").set("a", forKey: "early")
        try b.suite("s").set("b", forKey: "k")
        try b.suite("s").set("b", forKey: "k2")
        let report = try Synchronizer().sync(a, b)
        #expect(report.aToB.skewedVersions == 0)
        #expect(report.bToA.skewedVersions == 2, "both of B's versions are an hour ahead of A's clock")
        #expect(report.bToA.maxSkew >= .milliseconds(Self.hour - 1000) && report.bToA.maxSkew <= .milliseconds(Self.hour + 1000))
        #expect(try a.suite("s").get("k", as: String.self) == "b", "merged anyway")
        #expect(try Replicas.bytes(a) == Replicas.bytes(b))

        // A's clock moved at most to the drift bound, not an hour ahead.
        try a.suite("s").set("a2", forKey: "after")
        let after = try #require(try a.suite("s").record(forKey: "after")).version
        #expect(after.milliseconds <= Self.start + a.options.maxClockDriftMilliseconds + 1, "the bound, or the bound's counter overflowing by one")
        #expect(after.milliseconds >= Self.start)
        // …yet a write on A of the key B wrote still wins over B's future version (read-your-writes).
        try a.suite("s").set("a wins", forKey: "k")
        let k = try #require(try a.suite("s").record(forKey: "k"))
        #expect(k.version > (try b.suite("s").record(forKey: "k"))!.version)
        try Synchronizer().sync(a, b)
        #expect(try b.suite("s").get("k", as: String.self) == "a wins")
    }

    @Test func versionsStayOrderedWhenAWallClockGoesBackwards() throws {
        let tmp = try TemporaryDirectory("skew")
        defer { tmp.remove() }
        let clockA = ManualClock(.milliseconds(Self.start))
        let clockB = ManualClock(.milliseconds(Self.start))
        let a = try Replicas.open(tmp.path("a"), clock: clockA.read)
        let b = try Replicas.open(tmp.path("b"), clock: clockB.read)
        try a.suite("s").set(1, forKey: "k")
        let first = try #require(try a.suite("s").record(forKey: "k")).version
        clockA.rewind(.milliseconds(Self.hour)) // A's wall clock jumps back an hour
        try a.suite("s").set(2, forKey: "k")
        try a.suite("s").set(1, forKey: "other")
        let second = try #require(try a.suite("s").record(forKey: "k")).version
        let other = try #require(try a.suite("s").record(forKey: "other")).version
        #expect(second > first, "a later write on the same replica still wins")
        #expect(other > second, "the clock never goes backwards, even for other keys")
        clockB.advance(.milliseconds(10))
        try b.suite("s").set(3, forKey: "k") // B writes after A, by real time
        let report = try Synchronizer().sync(a, b)
        #expect(report.aToB.skewedVersions == 0, "A's versions are not ahead of B's clock")
        #expect(report.bToA.skewedVersions == 1, "measured by A's wall clock, an hour behind, B's version looks an hour ahead: reported")
        #expect(try a.suite("s").get("k", as: Int.self) == 3, "B's later write wins over A's rewound clock")
        #expect(try Replicas.bytes(a) == Replicas.bytes(b))
        // A, still an hour behind, writes again after having seen B's version: it wins.
        try a.suite("s").set(4, forKey: "k")
        try Synchronizer().sync(a, b)
        #expect(try b.suite("s").get("k", as: Int.self) == 4)
    }
}

/// One device with a wrong clock must not drag every replica's clock with it.
@Suite(.offThePool) struct SkewedKeyTests {
    static let start: UInt64 = 1_800_000_000_000
    static let year: UInt64 = 365 * 24 * 3_600_000

    @Test func overwritingAKeyFromTheFutureWinsWithoutMovingTheClockPastTheBound() throws {
        let tmp = try TemporaryDirectory("skew")
        defer { tmp.remove() }
        let real = ManualClock(.milliseconds(Self.start))
        let future = ManualClock(.milliseconds(Self.start + Self.year))
        let a = try Replicas.open(tmp.path("a"), clock: real.read)
        let b = try Replicas.open(tmp.path("b"), clock: future.read)
        let c = try Replicas.open(tmp.path("c"), clock: real.read)
        try b.suite("s").set("from the future", forKey: "k")
        let report = try Synchronizer().sync(a, b)
        #expect(report.bToA.skewedVersions == 1, "reported as skew when merged")
        // A's write of that key wins (read-your-writes) …
        let overwrite = try #require(try a.suite("s").set("mine", forKey: "k"))
        #expect(overwrite > (try #require(try b.suite("s").record(forKey: "k"))).version)
        // … but A's clock stays within the drift bound: a write of another key is not a year ahead.
        let bound = Self.start + a.options.maxClockDriftMilliseconds
        let other = try #require(try a.suite("s").set("x", forKey: "other"))
        #expect(other.milliseconds <= bound + 1, "\(other.milliseconds - Self.start) ms ahead")
        // … and neither is C's after it overwrites a key it got from A.
        try Synchronizer().sync(a, c)
        try c.suite("s").set("c's", forKey: "k")
        let onC = try #require(try c.suite("s").set("y", forKey: "another"))
        #expect(onC.milliseconds <= bound + 1)
        // An hour later, merging the skewed key again moves A's clock at most the drift bound ahead, so a
        // write on C more than that bound after A's still wins: nobody runs a year ahead.
        real.advance(.milliseconds(3_600_000))
        try Synchronizer().sync(a, c)
        let fromA = try #require(try a.suite("s").set("a later", forKey: "race"))
        #expect(fromA.milliseconds <= real.milliseconds + a.options.maxClockDriftMilliseconds + 1)
        real.advance(.milliseconds(a.options.maxClockDriftMilliseconds + 1_000))
        let fromC = try #require(try c.suite("s").set("c later still", forKey: "race"))
        #expect(fromC > fromA)
        try Synchronizer().sync(a, c)
        #expect(try a.suite("s").get("race", as: String.self) == "c later still")
        try Replicas.expectSound(a)
        try Replicas.expectSound(c)
    }

    @Test func versionsStayDistinctPerKeyAndIncreasing() throws {
        let tmp = try TemporaryDirectory("skew")
        defer { tmp.remove() }
        let real = ManualClock(.milliseconds(Self.start))
        let future = ManualClock(.milliseconds(Self.start + Self.year))
        let a = try Replicas.open(tmp.path("a"), clock: real.read)
        let b = try Replicas.open(tmp.path("b"), clock: future.read)
        for i in 0..<5 { try b.suite("s").set(i, forKey: "k\(i)") }
        try Synchronizer().sync(a, b)
        var last: [String: Version] = [:]
        for round in 0..<20 {
            for i in 0..<5 {
                let v = try #require(try a.suite("s").set(round, forKey: "k\(i)"))
                if let before = last["k\(i)"] { #expect(v > before) }
                last["k\(i)"] = v
            }
            let plain = try #require(try a.suite("s").set(round, forKey: "plain"))
            if let before = last["plain"] { #expect(plain > before) }
            last["plain"] = plain
            #expect(plain.milliseconds <= Self.start + a.options.maxClockDriftMilliseconds + 1)
        }
    }
}
