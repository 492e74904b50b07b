import Concord
import Foundation
import TestSupport
import Testing

/// Keys that stay on this device: their records never leave the replica by a directory sync, a bundle
/// or a live sync (the ssh, relay and hub transports are tested with them in SyncToolTests and
/// ConcordHubTests), never count as pending, and stay readable, observable and backed up locally; the
/// declaration syncs, a replica ignores such a key's records from a peer that had not seen it, and a
/// key made local after it synced stops syncing.
@Suite(.offThePool) struct DeviceLocalTests {
    /// Two replicas, each with a value of device-local "window.frame", a synced "theme", and A's
    /// declaration of the prefix "window." (B has not seen it).
    static func pair(_ tmp: TemporaryDirectory, clock: ManualClock) throws -> (Store, Store) {
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        try a.suite("ui").setDeviceLocal(true, forKeysWithPrefix: "window.")
        try a.suite("ui").set("0 0 800 600", forKey: "window.frame")
        clock.advance(.milliseconds(1))
        try b.suite("ui").set("10 10 1024 768", forKey: "window.frame") // B has not seen the declaration
        try a.suite("ui").set("dark", forKey: "theme")
        return (a, b)
    }

    /// What every transport must leave: each replica its own device-local value, the declaration and
    /// the synced key on both.
    static func expectKeptApart(_ a: Store, _ b: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try a.suite("ui").get("window.frame", as: String.self) == "0 0 800 600", sourceLocation: sourceLocation)
        #expect(try b.suite("ui").get("window.frame", as: String.self) == "10 10 1024 768", sourceLocation: sourceLocation)
        #expect(try b.suite("ui").isDeviceLocal("window.frame"), "the declaration reached B", sourceLocation: sourceLocation)
        #expect(try b.suite("ui").get("theme", as: String.self) == "dark", sourceLocation: sourceLocation)
    }

    @Test func aDirectorySyncCarriesTheDeclarationButNeverTheValues() throws {
        let tmp = try TemporaryDirectory("local")
        defer { tmp.remove() }
        let clock = ManualClock()
        let (a, b) = try Self.pair(tmp, clock: clock)
        let dry = try Synchronizer().sync(a, b, dryRun: true)
        #expect(dry.aToB.entries == 2, "the declaration and theme, not window.frame: \(dry.aToB)")
        let report = try Synchronizer().sync(a, b)
        #expect(report.aToB.entries == 2)
        #expect(report.bToA.deviceLocalIgnored == 1, "B's window.frame, sent before B knew, is ignored by A: \(report.bToA)")
        try Self.expectKeptApart(a, b)
        // Now B knows: its next write of the key stays with it, and nothing is pending either way.
        clock.advance(.milliseconds(1))
        try b.suite("ui").set("20 20 640 480", forKey: "window.frame")
        try a.suite("ui").set("5 5 100 100", forKey: "window.size")
        for (store, peer) in [(a, b.replicaID), (b, a.replicaID)] {
            #expect(try store.peerStatus().first { $0.peer == peer }?.unacknowledged == 0, "\(store.directory)")
        }
        let again = try Synchronizer().sync(a, b)
        #expect(again.aToB.entries == 0 && again.bToA.entries == 0 && again.bToA.deviceLocalIgnored == 0)
        #expect(try a.suite("ui").get("window.frame", as: String.self) == "0 0 800 600")
        #expect(try b.suite("ui").get("window.size", as: String.self) == nil)
        for store in [a, b] { try Replicas.expectSound(store) }
    }

    @Test func aBundleCarriesTheDeclarationButNeverTheValuesAndAnOlderBundlesValueIsIgnored() throws {
        let tmp = try TemporaryDirectory("local")
        defer { tmp.remove() }
        let clock = ManualClock()
        let (a, b) = try Self.pair(tmp, clock: clock)
        let fromA = tmp.path("a.concord")
        let exported = try BundleExchange.export(from: a, since: .beginning, to: fromA)
        #expect(exported.entries == 2)
        // B's bundle, made before B knew of the declaration, holds B's window.frame: A ignores it.
        let fromB = tmp.path("b.concord")
        try BundleExchange.export(from: b, since: .beginning, to: fromB)
        try BundleExchange.importBundle(at: fromA, into: b)
        let intoA = try BundleExchange.importBundle(at: fromB, into: a)
        #expect(intoA.deviceLocalIgnored == 1)
        try Self.expectKeptApart(a, b)
        #expect(try BundleExchange.export(from: b, since: .acknowledgedBy(a.replicaID), to: tmp.path("again.concord")).entries == 0)
    }

    @Test func aBatchCarryingTheDeclarationAndTheKeyIsJudgedByTheDeclarationEitherWay() throws {
        // C receives, in one batch from B, both A's declaration (through B) and B's own value of the key:
        // C ignores the value, whichever was written first.
        let tmp = try TemporaryDirectory("local")
        defer { tmp.remove() }
        let clock = ManualClock()
        let (a, b) = try Self.pair(tmp, clock: clock)
        let c = try Replicas.open(tmp.path("c"), clock: clock.read)
        try BundleExchange.importBundle(at: try Self.export(a, tmp.path("a1")), into: b) // B holds the declaration and its old value
        let report = try BundleExchange.importBundle(at: try Self.exportEverything(b, tmp.path("b1")), into: c)
        #expect(report.deviceLocalIgnored == 0, "B's bundle no longer carries the key: B knows it is local")
        // Forge what an older B would send: the declaration and the value in one batch.
        let value = try #require(try b.suite("ui").record(forKey: "window.frame"))
        let declaration = try #require(try b.read { try $0.record(suite: "_concord", key: "scope-prefix:ui:window.") })
        let d = try Replicas.open(tmp.path("d"), clock: clock.read)
        let batch = RemoteBatch(
            source: b.replicaID, selection: .all, fromSeq: 0, toSeq: 2,
            entries: [
                RemoteEntry(seq: 1, suite: "_concord", key: "scope-prefix:ui:window.", record: declaration),
                RemoteEntry(seq: 2, suite: "ui", key: "window.frame", record: value)
            ], knowledge: .none)
        let merged = try BatchApplier(store: d).apply(batch)
        #expect(merged.deviceLocalIgnored == 1 && merged.recordsChanged == 1)
        #expect(try d.suite("ui").get("window.frame", as: String.self) == nil)
        #expect(try d.suite("ui").isDeviceLocal("window.frame"))
    }

    @Test func aKeyMadeLocalAfterItSyncedStopsSyncingAndOneMadeSyncedAgainGoesOut() throws {
        let tmp = try TemporaryDirectory("local")
        defer { tmp.remove() }
        let clock = ManualClock()
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        try a.suite("app").set("/home/ada/Downloads", forKey: "downloads")
        try Synchronizer().sync(a, b)
        #expect(try b.suite("app").get("downloads", as: String.self) == "/home/ada/Downloads")
        clock.advance(.milliseconds(1))
        try a.suite("app").setDeviceLocal(true, forKey: "downloads")
        try a.suite("app").set("/Users/ada/Downloads", forKey: "downloads") // written before the next sync: stays here
        try Synchronizer().sync(a, b)
        #expect(try b.suite("app").get("downloads", as: String.self) == "/home/ada/Downloads", "B keeps the value it had")
        clock.advance(.milliseconds(1))
        try b.suite("app").set("/data/dl", forKey: "downloads")
        try Synchronizer().sync(a, b)
        #expect(try a.suite("app").get("downloads", as: String.self) == "/Users/ada/Downloads")
        clock.advance(.milliseconds(1))
        try a.suite("app").set("/Users/ada/dl", forKey: "downloads") // the newest write of all, on A

        // Synced again (a key's own declaration, on B this time): each side's record goes out, the newest
        // wins on both. A's entry of its record predates B's cursor on A: A journals it again when the
        // declaration reaches it, and it goes out at the next sync.
        clock.advance(.milliseconds(1))
        try b.suite("app").setDeviceLocal(false, forKey: "downloads")
        let report = try Synchronizer().sync(a, b)
        #expect(report.bToA.recordsRejournaled == 1, "A journaled its record again once the declaration reached it")
        try Synchronizer().sync(a, b)
        for store in [a, b] { #expect(try store.suite("app").get("downloads", as: String.self) == "/Users/ada/dl", "\(store.directory)") }
        #expect(try Replicas.bytes(a) == Replicas.bytes(b))
    }

    @Test func aDeviceLocalKeyIsStillObservedExplainedAndBackedUp() throws {
        let tmp = try TemporaryDirectory("local")
        defer { tmp.remove() }
        let store = try Replicas.open(tmp.path("a"))
        let suite = try store.suite("app")
        try suite.setDeviceLocal(true, forKeysWithPrefix: "paths.")
        try suite.setDeviceLocal(false, forKey: "paths.shared")
        #expect(try suite.isDeviceLocal("paths.cache") && !suite.isDeviceLocal("paths.shared") && !suite.isDeviceLocal("other"))
        let seen = Collector<Change>()
        let token = try suite.changes(for: "paths.cache").start { seen.append($0) }
        try suite.set("/var/cache/app", forKey: "paths.cache")
        #expect(seen.wait(for: 1))
        withExtendedLifetime(token) {}
        let why = try suite.explain("paths.cache")
        #expect(why.isDeviceLocal && why.value == .string("/var/cache/app"))
        #expect(try !suite.explain("paths.shared").isDeviceLocal)
        let backup = tmp.path("backup")
        try store.backup(to: backup)
        #expect(try Store(path: backup).suite("app").get("paths.cache", as: String.self) == "/var/cache/app")
        expectError(.reservedSuite) { try store.suite("_concord").setDeviceLocal(true, forKey: "x") }
    }

    @Test func liveSyncOfTwoDirectoriesKeepsThemApartToo() async throws {
        let tmp = try TemporaryDirectory("local")
        defer { tmp.remove() }
        let clock = ManualClock()
        let (a, b) = try Self.pair(tmp, clock: clock)
        let live = try LiveSync(store: a, directory: b.directory, heartbeat: .seconds(30))
        defer { live.stop() }
        for await state in live.states() where state.rounds > 0 { break }
        try Self.expectKeptApart(a, b)
        #expect(a.livePeers() == [b.replicaID] && b.livePeers() == [a.replicaID], "both directories register the live session")
        try await b.suite("ui").set("1 1 1 1", forKey: "window.frame")
        try await a.suite("ui").set("light", forKey: "theme")
        try await a.waitUntilAcknowledged(by: b.replicaID, timeout: .seconds(60))
        #expect(try b.suite("ui").get("theme", as: String.self) == "light")
        #expect(try a.suite("ui").get("window.frame", as: String.self) == "0 0 800 600")
        live.stop()
        #expect(a.livePeers().isEmpty && b.livePeers().isEmpty)
    }

    static func export(_ store: Store, _ path: String) throws -> String {
        try BundleExchange.export(from: store, since: .beginning, to: path)
        return path
    }

    static func exportEverything(_ store: Store, _ path: String) throws -> String { try export(store, path) }
}
