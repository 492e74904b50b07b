import Concord
import Foundation
import TestSupport
import Testing

/// An encrypted suite's sealed records travel as they are: a replica without the key stores and
/// relays them, a replica with the key reads them, and neither a bundle nor what `serve` sends shows
/// a name or a value.
@Suite(.offThePool) struct EncryptedSyncTests {
    static let markerValue = "marker-value-e41f0b3d"
    static let markerKey = "marker-key-7c2a9e55"

    static func keyed(_ path: String, _ key: EncryptionKey) throws -> Store {
        var options = Store.Options()
        options.durability = .none // the tests are about what travels, not power loss
        options.suiteKeys["secrets"] = key
        return try Store(path: path, options: options)
    }

    /// A replica at `path` holding the markers in suite "secrets", encrypted with `key`, and a control
    /// pair in the clear in suite "plain" (so a scan for the markers can fail).
    static func markedSource(_ path: String, _ key: EncryptionKey) throws -> Store {
        let store = try keyed(path, key)
        try store.suite("secrets").encrypt(with: key)
        try store.suite("secrets").set(markerValue, forKey: markerKey)
        try store.suite("plain").set("plain-value-93aa", forKey: "plain-key-51c0")
        return store
    }

    static func contains(_ bytes: some DataProtocol, _ text: String) -> Bool {
        Data(bytes).range(of: Data(text.utf8)) != nil
    }

    @Test func aReplicaWithoutTheKeyStoresAndRelaysWhatOneWithTheKeyReads() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let a = try Self.keyed(tmp.path("a"), key)
        try a.suite("secrets").encrypt(with: key)
        try a.suite("secrets").set(Self.markerValue, forKey: Self.markerKey)
        try a.suite("secrets").set(1, forKey: "count")
        let relay = try Replicas.open(tmp.path("relay")) // a backup host: no key
        let c = try Self.keyed(tmp.path("c"), key)

        try Synchronizer().sync(a, relay)
        #expect(try relay.suite("secrets").isEncrypted, "the declaration arrived before any key")
        expectError(.suiteKeyMissing) { _ = try relay.suite("secrets").get(Self.markerKey, as: String.self) }
        let held = try relay.read { r in
            var rows: [StoredRow] = []
            try r.scanRecords(suite: "secrets") { _, _, row in
                rows.append(row)
                return true
            }
            return rows
        }
        #expect(held.count == 2 && held.allSatisfy(\.record.isSealed))
        #expect(try !Self.contains(Data(contentsOf: URL(fileURLWithPath: tmp.path("relay") + "/data.mdb")), Self.markerValue))
        #expect(try !Self.contains(Data(contentsOf: URL(fileURLWithPath: tmp.path("relay") + "/data.mdb")), Self.markerKey))

        try Synchronizer().sync(relay, c)
        #expect(try c.suite("secrets").get(Self.markerKey, as: String.self) == Self.markerValue)
        try c.suite("secrets").set(2, forKey: "count")
        try Synchronizer().sync(c, relay)
        try Synchronizer().sync(relay, a)
        #expect(try a.suite("secrets").get("count", as: Int.self) == 2)
        #expect(try Replicas.bytes(a) == Replicas.bytes(c), "the replicas hold byte-identical records")
    }

    @Test func concurrentWritesConvergeToTheLaterOnEveryReplica() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        var random = SeededRandom(seed: 22)
        let holders = try (0..<3).map { try Self.keyed(tmp.path("r\($0)"), key) }
        let relay = try Replicas.open(tmp.path("relay"))
        try holders[0].suite("secrets").encrypt(with: key)
        for holder in holders.dropFirst() { try Synchronizer().sync(holders[0], holder) }
        let all = holders + [relay]
        // The oracle: of every write of a key, the one with the greatest version is what every replica reads.
        var latest: [String: (version: Version, value: Int?)] = [:]
        for step in 0..<300 {
            let replica = Int(random.next() % 3)
            let name = "k\(random.next() % 12)"
            let suite = try holders[replica].suite("secrets")
            let version: Version?
            let value: Int?
            if random.next() % 4 == 0 {
                (version, value) = (try suite.remove(name), nil)
            } else {
                (version, value) = (try suite.set(step, forKey: name), step)
            }
            if let version, latest[name].map({ $0.version < version }) ?? true { latest[name] = (version, value) }
            if random.next() % 5 == 0 {
                let x = Int(random.next() % 4)
                let y = (x + 1 + Int(random.next() % 3)) % 4
                try Synchronizer().sync(all[x], all[y])
            }
        }
        for _ in 0..<2 { for store in holders { try Synchronizer().sync(store, relay) } }
        for store in holders {
            for (name, expected) in latest {
                #expect(try store.suite("secrets").get(name, as: Int.self) == expected.value, "\(name) on \(store.directory)")
            }
            #expect(try store.suite("secrets").keys() == latest.filter { $0.value.value != nil }.keys.sorted())
        }
        #expect(try Replicas.bytes(holders[0]) == Replicas.bytes(holders[1]) && Replicas.bytes(holders[1]) == Replicas.bytes(holders[2]))
    }

    @Test func aBundleHoldsNoNameOrValueAndATamperedSealIsRefusedChangingNothing() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let a = try Self.markedSource(tmp.path("a"), key)
        let bundle = tmp.path("a.concord")
        try a.exportBundle(to: bundle)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: bundle)))
        #expect(!Self.contains(bytes, Self.markerValue) && !Self.contains(bytes, Self.markerKey))
        #expect(Self.contains(bytes, "plain-value-93aa") && Self.contains(bytes, "plain-key-51c0"), "the scan can fail")

        // A replica without the key imports it, sealed; one with the key reads it.
        let keyless = try Replicas.open(tmp.path("keyless"))
        try keyless.importBundle(at: bundle)
        expectError(.suiteKeyMissing) { _ = try keyless.suite("secrets").get(Self.markerKey, as: String.self) }
        let holder = try Self.keyed(tmp.path("holder"), key)
        try holder.importBundle(at: bundle)
        #expect(try holder.suite("secrets").get(Self.markerKey, as: String.self) == Self.markerValue)

        // A changed byte of the seal: the checksum refuses it; recomputed (a forgery), the key holder does.
        let rowKey = try #require(
            try a.read { r in
                var found: String?
                try r.scanRecords(suite: "secrets") { _, key, _ in
                    found = key
                    return false
                }
                return found
            })
        let at = try #require(Data(bytes).range(of: Data(rowKey.utf8))).upperBound + 4 + Record.headerSize + 30
        var damaged = bytes
        damaged[at] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: tmp.path("damaged.concord")))
        var forged = damaged
        let crc = CRC32.checksum(forged.dropLast(4))
        forged.replaceSubrange((forged.count - 4)..., with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xff), UInt8(crc >> 8 & 0xff), UInt8(crc & 0xff)])
        try Data(forged).write(to: URL(fileURLWithPath: tmp.path("forged.concord")))
        let fresh = try Self.keyed(tmp.path("fresh"), key)
        for store in [holder, fresh] {
            let before = try (Replicas.bytes(store), store.lastSeq())
            expectError(.checksumMismatch) { try store.importBundle(at: tmp.path("damaged.concord")) }
            do {
                try store.importBundle(at: tmp.path("forged.concord"))
                Issue.record("the forged bundle was imported into \(store.directory)")
            } catch let error as ConcordError {
                #expect(error.code == .refusedRecord && error.suite == "secrets", "\(error)")
                #expect(error.message.contains("damaged or forged"), "\(error)")
            }
            #expect(try (Replicas.bytes(store), store.lastSeq()) == before, "nothing changed in \(store.directory)")
        }
    }

    @Test func whatServeSendsHoldsNoNameOrValue() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let server = try Self.markedSource(tmp.path("server"), key)
        let client = try Store(path: tmp.path("client"))
        let hello = SyncFrame.hello(SyncHello(replica: client.replicaID, selection: .all, knowledge: .none, lastSeq: try client.lastSeq())).encoded()
        let verdict = SyncFrame.verdict(SyncVerdict(ContactCheck())).encoded()
        let input = tmp.path("input")
        _ = FileManager.default.createFile(atPath: input, contents: Data(hello + verdict + SyncFrame.end.encoded()))
        // serve answers the hello, then sends its batches once the client's round has ended.
        let serve = try ChildProcess(
            "/bin/sh", ["-c", "exec \"$0\" serve \"$1\" --timeout 5 < \"$2\"", Binaries.path("sync-tool"), server.directory, input])
        let ended = serve.wait(timeout: 60)
        let sent = serve.outputBytes
        #expect(Self.contains(sent, "plain-value-93aa") && Self.contains(sent, "plain-key-51c0"), "the batch was sent: \(ended.stderr)")
        #expect(!Self.contains(sent, Self.markerValue) && !Self.contains(sent, Self.markerKey))
    }
}
