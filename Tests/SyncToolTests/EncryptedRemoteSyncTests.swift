import Concord
import Foundation
import ScratchSSH
import TestSupport
import Testing

/// An encrypted suite synced over ssh by sync-tool processes that hold no key: the sealed records
/// travel as they are, concurrent writes settle on the later on both sides, and the far side's files
/// hold no name or value.
@Suite("Encrypted suites over a real sshd", .serialized, .offThePool)
struct EncryptedRemoteSyncTests {
    let fx: RemoteFixture
    init() throws { fx = try RemoteFixture() }

    static func keyed(_ path: String, _ key: EncryptionKey) throws -> Store {
        var options = Store.Options()
        options.suiteKeys["secrets"] = key
        return try Store(path: path, options: options)
    }

    @Test("keyless sync-tool processes on both ends carry the sealed records; the later of concurrent writes wins on both sides")
    func sealedRecordsOverSSH() throws {
        let key = EncryptionKey.generate()
        let a = try Self.keyed(fx.path("a"), key)
        try a.suite("secrets").encrypt(with: key)
        try a.suite("secrets").set("marker-value-0d6b21", forKey: "marker-key-a9f3c4")
        let first = try fx.sync(fx.path("a"), fx.remote("b"), ["--create"])
        #expect(first.status == 0, "\(first.stderr)")
        let b = try Self.keyed(fx.path("b"), key)
        #expect(try b.suite("secrets").get("marker-key-a9f3c4", as: String.self) == "marker-value-0d6b21")

        // Concurrent writes of the same keys: on each key the later one wins, whichever side made it.
        try a.suite("secrets").set("a first", forKey: "theme")
        try b.suite("secrets").set("b first", forKey: "size")
        let written = try a.suite("secrets").record(forKey: "theme")!.version
        waitForWallClock(after: written.hlc >> 16)
        try b.suite("secrets").set("b later", forKey: "theme")
        let bSize = try b.suite("secrets").record(forKey: "size")!.version
        waitForWallClock(after: bSize.hlc >> 16)
        try a.suite("secrets").set("a later", forKey: "size")
        let second = try fx.sync(fx.path("a"), fx.remote("b"))
        #expect(second.status == 0, "\(second.stderr)")
        for store in [a, b] {
            #expect(try store.suite("secrets").get("theme", as: String.self) == "b later", "\(store.directory)")
            #expect(try store.suite("secrets").get("size", as: String.self) == "a later", "\(store.directory)")
        }
        // Each beaten write is logged where it was beaten, named by its key and opened for the key holder.
        let beaten = try (a.conflicts(suite: "secrets") + b.conflicts(suite: "secrets")).map { ($0.key, try $0.loser.value()) }
            .sorted { $0.0 < $1.0 }
        #expect(beaten.map(\.0) == ["size", "theme"], "\(beaten)")
        #expect(beaten.map(\.1) == [.string("b first"), .string("a first")], "\(beaten)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fx.path("b") + "/data.mdb"))
        for marker in ["marker-value-0d6b21", "marker-key-a9f3c4", "b later", "a later"] {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) is in b's data.mdb")
        }
    }

    @Test("concurrent increments and additions on three replicas syncing only over ssh, through keyless sync-tool processes, add up")
    func policiesOverSSH() throws {
        let key = EncryptionKey.generate()
        let counter = "launches-marker-2f9107"
        let a = try Self.keyed(fx.path("a"), key)
        try a.suite("secrets").encrypt(with: key)
        try a.suite("secrets").declare(.counter, forKey: counter)
        try a.suite("secrets").declare(.set, forKey: "tags")
        let first = try fx.sync(fx.path("a"), fx.remote("relay"), ["--create"])
        #expect(first.status == 0, "\(first.stderr)")
        let replicas = [a, try Self.keyed(fx.path("b"), key), try Self.keyed(fx.path("c"), key)]
        func syncAll() throws {
            for name in ["a", "b", "c", "a", "b"] {
                let result = try fx.sync(fx.path(name), fx.remote("relay"))
                #expect(result.status == 0, "\(name): \(result.stderr)")
            }
        }
        try syncAll()
        for (i, amount) in [1, 10, 100].enumerated() {
            let secrets = try replicas[i].suite("secrets")
            try secrets.increment(counter, by: amount)
            try secrets.increment(counter, by: amount)
            try secrets.update("tags", as: [String].self) { $0 = ($0 ?? []) + ["member-\(i)-c41e"] }
        }
        try syncAll()
        for store in replicas {
            #expect(try store.suite("secrets").get(counter, as: Int.self) == 222, "\(store.directory)")
            #expect(try store.suite("secrets").get("tags", as: [String].self) == ["member-0-c41e", "member-1-c41e", "member-2-c41e"], "\(store.directory)")
            #expect(try store.conflicts(suite: "secrets").isEmpty)
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fx.path("relay") + "/data.mdb"))
        for marker in [counter, "member-0-c41e", "member-2-c41e"] {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) is in the relay's data.mdb")
        }
    }
}
