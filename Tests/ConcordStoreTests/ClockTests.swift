import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Concord

@Suite("Versions and the hybrid logical clock", .offThePool)
struct ClockTests {
    @Test func versionsAreTotallyOrderedByHLCThenReplica() {
        let a = ReplicaID(bytes: [UInt8](repeating: 1, count: 16))!
        let b = ReplicaID(bytes: [UInt8](repeating: 2, count: 16))!
        #expect(Version(hlc: 5, replica: b) < Version(hlc: 6, replica: a))
        #expect(Version(hlc: 6, replica: a) < Version(hlc: 6, replica: b))
        #expect(Version(hlc: 1 << 16, replica: a).milliseconds == 1)
        let high = ReplicaID(bytes: [0x80] + [UInt8](repeating: 0, count: 15))!
        #expect(ReplicaID(bytes: [0x7f] + [UInt8](repeating: 0xff, count: 15))! < high)
    }

    @Test func aWallClockGoingBackwardsNeverProducesASmallerVersion() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let clock = ManualClock()
        var options = Store.Options()
        options.wallClock = clock.read
        let suite = try Store(path: tmp.path("r"), options: options).suite("app")
        var last: Version?
        for step in 0..<200 {
            // forwards, backwards by an hour, stuck, forwards again
            clock.set(.milliseconds(step % 3 == 1 ? 1_800_000_000_000 - 3_600_000 : 1_800_000_000_000 + UInt64(step)))
            try suite.set(step, forKey: step % 2 == 0 ? "a" : "b")
            let v = try #require(try suite.record(forKey: step % 2 == 0 ? "a" : "b")).version
            if let last { #expect(v > last) }
            last = v
        }
    }

    @Test func aLocalWriteWinsOverAnyVersionTheReplicaHeld() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let clock = ManualClock()
        var options = Store.Options()
        options.wallClock = clock.read
        let store = try Store(path: tmp.path("r"), options: options)
        let suite = try store.suite("app")
        // A record from the far future (e.g. merged from a skewed peer) …
        let future = Version(hlc: (clock.milliseconds + 86_400_000) << 16, replica: .zero)
        try store.write { w in try w.storeMerged(Record(version: future, value: .int(1)), suite: "app", key: "k", from: .zero, replacing: nil) }
        // … is still overwritten by a local write: read-your-writes.
        try suite.set(2, forKey: "k")
        let record = try #require(try suite.record(forKey: "k"))
        #expect(record.version > future)
        #expect(try suite.get("k", as: Int.self) == 2)
    }

    @Test func versionsSurviveReopeningInAnotherProcess() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("r")
        var versions: [String] = []
        for i in 0..<5 {
            #expect(try run("sync-tool", ["set", dir, "app", "k", "\(i)"]).status == 0)
            let got = try run("sync-tool", ["get", dir, "app", "k", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(got.stdout.utf8)) as? [String: Any])
            versions.append(try #require(object["version"] as? String))
        }
        #expect(versions == versions.sorted())
        #expect(Set(versions).count == 5)
    }
}
