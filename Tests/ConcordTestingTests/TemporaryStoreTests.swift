import Concord
import ConcordTesting
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Store.temporary()`: a real store in a private directory that goes when the last thing using it
/// is released — and only then, after the store is closed.
@Suite("Store.temporary", .offThePool)
struct TemporaryStoreTests {
    func mode(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mode & 0o777) : -1
    }

    /// Makes a temporary store, lets `body` use it, and returns its directory once `body`'s references are gone.
    func afterUsing(_ body: (Store) throws -> Void) throws -> String {
        let store = try Store.temporary()
        try body(store)
        return store.directory
    }

    @Test func aRealPrivateStoreThatRemovesItselfWhenReleased() throws {
        var seenDirectory = ""
        let directory = try afterUsing { store in
            seenDirectory = store.directory
            #expect(mode(store.directory) == 0o700)
            let suite = try store.suite("preview")
            try suite.set("dark", forKey: "theme")
            #expect(try suite.get("theme", as: String.self) == "dark")
            #expect(try store.integrityReport().isSound)
            // Another process opens it like any other store.
            let other = try run("sync-tool", ["get", store.directory, "preview", "theme"])
            #expect(other.stdout == "dark\n", "\(other.stderr)")
        }
        #expect(directory == seenDirectory)
        #expect(!FileManager.default.fileExists(atPath: directory), "the directory goes with the last reference")
    }

    @Test func itStaysWhileASuiteOrAnotherStoreOfItIsAlive() throws {
        var suite: Suite? = try Store.temporary().suite("app")
        let directory = suite!.store.directory
        try suite!.set(1, forKey: "n")
        var second: Store? = try Store(path: directory) // shares the process's environment for the directory
        suite = nil
        #expect(FileManager.default.fileExists(atPath: directory + "/data.mdb"), "a second Store of the directory keeps it")
        #expect(try second!.suite("app").get("n", as: Int.self) == 1)
        second = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
        // Opening the path again starts an empty store: nothing of the old one was left behind.
        let fresh = try Store(path: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try fresh.suiteNames().isEmpty)
    }

    @Test func everyCallGetsItsOwnStore() throws {
        let a = try Store.temporary()
        let b = try Store.temporary()
        #expect(a.directory != b.directory)
        #expect(a.replicaID != b.replicaID)
        try a.suite("s").set(1, forKey: "k")
        #expect(try b.suite("s").contains("k") == false)
    }

    @Test func theManualClockStampsVersionsAndDrivesRetention() throws {
        let clock = ManualClock()
        let store = try Store.temporary(clock: clock)
        let suite = try store.suite("app")
        try suite.set(1, forKey: "draft")
        #expect(try suite.record(forKey: "draft")?.version.milliseconds == clock.milliseconds)
        try suite.remove("draft")
        clock.advance(days: 29)
        #expect(try store.collectTombstones().collected == 0)
        clock.advance(days: 2)
        #expect(try store.collectTombstones().collected == 1)
        try suite.set(2, forKey: "before-rewind")
        let before = try #require(try suite.record(forKey: "before-rewind")?.version)
        clock.rewind(.milliseconds(60_000))
        try suite.set(3, forKey: "after-rewind")
        let after = try #require(try suite.record(forKey: "after-rewind")?.version)
        #expect(
            after > before && after.milliseconds > clock.milliseconds,
            "the store's clock never goes backwards, even when the wall clock does")
    }
}
