import Foundation
import TestSupport
import Testing

@testable import Concord

/// Options belong to the replica a process opened: a second handle on the directory gets the first's,
/// and asking it for others is refused, never ignored.
@Suite("Options of a second handle on one replica")
struct StoreOptionsTests {
    let tmp: TemporaryDirectory

    init() throws { tmp = try TemporaryDirectory() }

    func options(durability: Store.Durability = .none, drift: UInt64 = 5 * 60 * 1000) -> Store.Options {
        var options = Store.Options()
        options.durability = durability
        options.maxClockDrift = .milliseconds(drift)
        return options
    }

    @Test func aSecondHandleAskingForOtherOptionsIsRefusedNamingThem() throws {
        let path = tmp.path("r")
        let first = try Store(path: path, options: options(durability: .none, drift: 1000))
        try first.suite("s").set(1, forKey: "k")
        let error = try #require(throws: ConcordError.self) { try Store(path: path, options: options(durability: .full, drift: 1000)) }
        #expect(error.code == .invalidArgument)
        #expect(error.path == first.directory)
        #expect(error.message.contains("durability full (it has none)"), "\(error.message)")
        #expect(!error.message.contains("maxClockDrift"), "only what differs is named: \(error.message)")
        let drift = try #require(throws: ConcordError.self) { try Store(path: path, options: options(durability: .none, drift: 2000)) }
        #expect(drift.message.contains("maxClockDrift 2.0 seconds (it has 1.0 seconds)"), "\(drift.message)")
        var clocked = options(durability: .none, drift: 1000)
        clocked.wallClock = { .milliseconds(42) }
        let clock = try #require(throws: ConcordError.self) { try Store(path: path, options: clocked) }
        #expect(clock.message.contains("another wallClock"), "\(clock.message)")
        // The refusal changed nothing: the first handle still reads and writes.
        try first.suite("s").set(2, forKey: "k")
        #expect(try first.suite("s").get("k", as: Int.self) == 2)
    }

    @Test func aSecondHandleWithTheSameOptionsOrNoneSharesTheReplicasOptions() throws {
        let path = tmp.path("r")
        var given = options(durability: .noMetaSync, drift: 1234)
        given.wallClock = { .milliseconds(1_000_000) }
        let first = try Store(path: path, options: given)
        let same = try Store(path: path, options: given)
        var creating = given
        creating.createIfMissing = false // how one open behaves, not the replica's
        let notCreating = try Store(path: path, options: creating)
        let none = try Store(path: path)
        for handle in [same, notCreating, none] {
            #expect(handle.options.durability == .noMetaSync)
            #expect(handle.options.maxClockDrift == .milliseconds(1234))
            #expect(handle.options.wallClock() == .milliseconds(1_000_000))
        }
        #expect(first.options.differences(from: none.options).isEmpty)
    }

    /// Batch application reads the replica's drift and clock, whichever handle syncs.
    @Test func aSyncThroughASecondHandleMergesWithTheReplicasClockAndDrift() throws {
        var slow = options(drift: 1000)
        slow.wallClock = { .milliseconds(1_000_000) } // long before the system clock
        let target = try Store(path: tmp.path("b"), options: slow)
        var ahead = options()
        ahead.wallClock = { .milliseconds(1_000_000 + 3_600_000) } // an hour after the target's clock
        let source = try Store(path: tmp.path("a"), options: ahead)
        try source.suite("s").set(1, forKey: "k")
        let handle = try Store(path: target.directory)
        let report = try Synchronizer().sync(source, handle)
        #expect(report.aToB.skewedVersions == 1, "the version is an hour ahead of the replica's clock, past its one-second drift")
        #expect(report.aToB.maxSkew == .seconds(3600))
    }
}
