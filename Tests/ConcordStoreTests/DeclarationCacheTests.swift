import Foundation
import TestSupport
import Testing

@testable import Concord

/// A process keeps what the reserved suite declares (policies, encryption) between its write
/// transactions; a declaration written since — by another process, or by a sync — is what its next
/// write follows.
@Suite("Declarations kept between writes", .offThePool, .timeLimit(.minutes(2)))
struct DeclarationCacheTests {
    /// A store at `tmp/r` whose suite "app" this process has written a few times (so what the
    /// reserved suite declares for it is known here), and that suite.
    static func warmStore(_ tmp: TemporaryDirectory) throws -> (Store, Suite) {
        let store = try Store(path: tmp.path("r"))
        let app = try store.suite("app")
        for i in 0..<3 {
            try app.set(i, forKey: "n")
            try app.set(i, forKey: "score.a")
        }
        return (store, app)
    }

    @Test func aPolicyDeclaredByAnotherProcessIsFollowedByTheNextWrite() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let (_, app) = try Self.warmStore(tmp)
        #expect(try run("sync-tool", ["policy", tmp.path("r"), "app", "n", "counter"]).status == 0)
        #expect(try run("sync-tool", ["policy", tmp.path("r"), "app", "score.", "max", "--prefix"]).status == 0)
        try app.set(10, forKey: "n")
        try app.increment("n", by: 5)
        try app.set(7, forKey: "score.a")
        try app.set(3, forKey: "score.a") // a max key keeps the greater proposal
        #expect(try app.record(forKey: "n")?.policy == .counter)
        #expect(try app.get("n", as: Int.self) == 15)
        #expect(try app.record(forKey: "score.a")?.policy == .max)
        #expect(try app.get("score.a", as: Int.self) == 7)
    }

    @Test func aSuiteEncryptedByAnotherProcessIsNotWrittenInTheClearAfterwards() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let (store, app) = try Self.warmStore(tmp)
        let keyFile = tmp.path("app.key")
        #expect(try run("sync-tool", ["keygen", keyFile]).status == 0)
        #expect(try run("sync-tool", ["encrypt", tmp.path("r"), "app", "--key-file", keyFile]).status == 0)
        expectError(.suiteKeyMissing, "the suite is encrypted now, and this process holds no key") { try app.set("clear", forKey: "n") }
        try app.useKey(try EncryptionKey(contentsOfFile: keyFile))
        try app.set("sealed", forKey: "n")
        #expect(try app.get("n", as: String.self) == "sealed")
        #expect(try store.integrityReport().isSound)
        let plain = try #require(try store.read { r in try r.record(suite: "app", key: "n") })
        #expect(plain.isTombstone, "the row in the clear holds no value, only the tombstone the encryption left")
    }

    @Test func aPolicyDeclarationMergedBySyncIsFollowedByTheNextWrite() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let (store, app) = try Self.warmStore(tmp)
        let other = try Store(path: tmp.path("other"))
        try other.suite("app").declare(.counter, forKey: "n")
        _ = try await Synchronizer().sync(other, store)
        try await app.set(10, forKey: "n")
        try await app.increment("n", by: 2)
        #expect(try app.record(forKey: "n")?.policy == .counter)
        #expect(try app.get("n", as: Int.self) == 12)

        // The same arriving through another process's sync.
        try other.suite("app").declare(.max, forKey: "score.a")
        #expect(try run("sync-tool", ["sync", tmp.path("other"), tmp.path("r")]).status == 0)
        try await app.set(9, forKey: "score.a")
        try await app.set(4, forKey: "score.a")
        #expect(try app.record(forKey: "score.a")?.policy == .max)
        #expect(try app.get("score.a", as: Int.self) == 9)
    }

    @Test func aDeclarationThisProcessWritesIsFollowedByItsNextWrite() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let (_, app) = try Self.warmStore(tmp)
        try app.declare(.counter, forKey: "m")
        try app.set(1, forKey: "m")
        #expect(try app.record(forKey: "m")?.policy == .counter)
        try app.declare(.max, forKeysWithPrefix: "score.")
        try app.set(2, forKey: "score.b")
        #expect(try app.record(forKey: "score.b")?.policy == .max)
        try app.declare(nil, forKeysWithPrefix: "score.")
        try app.set(3, forKey: "score.c")
        #expect(try app.record(forKey: "score.c")?.policy == .lww)
    }
}
