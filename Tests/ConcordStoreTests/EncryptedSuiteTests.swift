import Foundation
import TestSupport
import Testing

@testable import Concord

/// An encrypted suite: values and key names sealed before they reach the files, readable with the
/// suite's key only, refused (never garbage) without it or with another, and any changed byte of a
/// sealed row refused as damage.
@Suite(.timeLimit(.minutes(2))) struct EncryptedSuiteTests {
    static let markerValue = "marker-value-5b0e1c7a"
    static let markerKey = "marker-key-93d4f2a6"

    /// Whether `needle` occurs in the bytes of the file at `path`.
    static func file(_ path: String, contains needle: String) throws -> Bool {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return bytes.range(of: Data(needle.utf8)) != nil
    }

    /// A store at `tmp/a` whose suite "secrets" is encrypted with `key` and holds the markers (and a
    /// removed key), beside a plain suite "plain" holding `plainMarker`.
    static func sealedStore(_ tmp: TemporaryDirectory, key: EncryptionKey, plainMarker: String = "plain-value-0c4e") throws -> Store {
        let store = try Store(path: tmp.path("a"))
        let secrets = try store.suite("secrets")
        try secrets.encrypt(with: key)
        try secrets.set(markerValue, forKey: markerKey)
        try secrets.set("gone soon", forKey: "removed-\(markerKey)")
        try secrets.remove("removed-\(markerKey)")
        try secrets.update("count", as: Int.self) { $0 = ($0 ?? 0) + 41 }
        try secrets.increment("count")
        try store.suite("plain").set(plainMarker, forKey: "plain-key-77a1")
        return store
    }

    /// A copy of `store` at `tmp/NAME`, opened with `keys`: another process's view of the replica.
    static func copy(of store: Store, _ tmp: TemporaryDirectory, _ name: String, keys: [String: EncryptionKey] = [:]) throws -> Store {
        try store.backup(to: tmp.path(name))
        var options = Store.Options()
        options.suiteKeys = keys
        return try Store(path: tmp.path(name), options: options)
    }

    @Test func markersNeverReachTheFilesAndReadBackWithTheKey() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let store = try Self.sealedStore(tmp, key: key)
        for file in ["data.mdb", "lock.mdb"] {
            let path = tmp.path("a") + "/" + file
            #expect(try !Self.file(path, contains: Self.markerValue), "the value is in \(file)")
            #expect(try !Self.file(path, contains: Self.markerKey), "the key's name is in \(file)")
        }
        // The scan can fail: the plain suite's value and key are in data.mdb as they are.
        #expect(try Self.file(tmp.path("a") + "/data.mdb", contains: "plain-value-0c4e"))
        #expect(try Self.file(tmp.path("a") + "/data.mdb", contains: "plain-key-77a1"))

        let secrets = try store.suite("secrets")
        #expect(try secrets.get(Self.markerKey, as: String.self) == Self.markerValue)
        #expect(try secrets.get("count", as: Int.self) == 42)
        #expect(try secrets.get("removed-\(Self.markerKey)", as: String.self) == nil)
        #expect(try secrets.keys() == ["count", Self.markerKey])
        #expect(try secrets.snapshot() == ["count": .int(42), Self.markerKey: .string(Self.markerValue)])
        #expect(try secrets.contains(Self.markerKey))
        #expect(try secrets.isEncrypted)
        #expect(try !store.suite("plain").isEncrypted)

        // The rows as stored: every one sealed, under a row key that is not a name.
        let rows = try store.read { r in
            var out: [(String, StoredRow)] = []
            try r.scanRecords(suite: "secrets") { _, key, row in
                out.append((key, row))
                return true
            }
            return out
        }
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.1.record.isSealed && $0.0.utf8.count == SuiteSealing.rowKeyLength && !$0.0.contains("marker") })

        // The journal delivers names and values to the key holder.
        let changes = try store.changes(after: 0, suite: "secrets")
        #expect(Set(changes.map(\.key)) == ["count", Self.markerKey, "removed-\(Self.markerKey)"])
        #expect(changes.first { $0.key == Self.markerKey }?.value == .string(Self.markerValue))
        #expect(changes.first { $0.key == "removed-\(Self.markerKey)" }?.isDeletion == true)
    }

    @Test func withoutTheKeyReadsAndWritesAreRefusedNamingTheSuite() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let store = try Self.sealedStore(tmp, key: key)
        let keyless = try Self.copy(of: store, tmp, "keyless")
        let secrets = try keyless.suite("secrets")
        func expectMissing(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) was not refused")
            } catch let error as ConcordError {
                #expect(error.code == .suiteKeyMissing, "\(what): \(error)")
                #expect(error.suite == "secrets" && error.message.contains("\"secrets\""), "\(what): \(error)")
            } catch {
                Issue.record("\(what): \(error)")
            }
        }
        expectMissing("get") { _ = try secrets.get(Self.markerKey, as: String.self) }
        expectMissing("get of a key never written") { _ = try secrets.get("never", as: String.self) }
        expectMissing("record") { _ = try secrets.record(forKey: Self.markerKey) }
        expectMissing("keys") { _ = try secrets.keys() }
        expectMissing("snapshot") { _ = try secrets.snapshot() }
        expectMissing("set") { try secrets.set("x", forKey: "new") }
        expectMissing("remove") { try secrets.remove(Self.markerKey) }
        expectMissing("increment") { _ = try secrets.increment("count") }
        expectMissing("reset") { try secrets.reset() }
        var observed: (any Error)?
        do { for try await _ in secrets.values(of: Self.markerKey, as: String.self) { break } } catch { observed = error }
        #expect(code(observed) == .suiteKeyMissing)
        // The rest of the replica reads as it is, and the journal shows nothing of the suite.
        #expect(try keyless.suite("plain").get("plain-key-77a1", as: String.self) == "plain-value-0c4e")
        #expect(try keyless.changes(after: 0, suite: "secrets").isEmpty)
        #expect(try secrets.isEncrypted)

        // Given the key, the same handle reads and writes.
        try secrets.useKey(key)
        #expect(try secrets.get(Self.markerKey, as: String.self) == Self.markerValue)
        try await secrets.set("more", forKey: "new")
        #expect(try secrets.get("new", as: String.self) == "more")
    }

    @Test func aWrongKeyIsRefusedBeforeAnythingOpens() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let wrong = EncryptionKey.generate()
        let store = try Self.sealedStore(tmp, key: key)
        let other = try Self.copy(of: store, tmp, "other", keys: ["secrets": wrong])
        let secrets = try other.suite("secrets")
        expectError(.suiteKeyMismatch) { _ = try secrets.get(Self.markerKey, as: String.self) }
        expectError(.suiteKeyMismatch) { try secrets.set("x", forKey: Self.markerKey) }
        expectError(.suiteKeyMismatch) { _ = try secrets.keys() }
        expectError(.suiteKeyMismatch) { try store.suite("secrets").useKey(wrong) }
        expectError(.suiteKeyMismatch) { try store.suite("secrets").encrypt(with: wrong) }
        // The replica holding the right key is unchanged by the refusals.
        #expect(try store.suite("secrets").get(Self.markerKey, as: String.self) == Self.markerValue)
        do {
            _ = try secrets.get(Self.markerKey, as: String.self)
        } catch let error as ConcordError {
            #expect(error.suite == "secrets")
            #expect(error.message.contains(wrong.idText) && error.message.contains(key.idText), "both keys named by their ids: \(error)")
        }
    }

    /// The row of `name` in "secrets" as stored, and its row key.
    static func sealedRow(_ store: Store, key: EncryptionKey, name: String) throws -> (rowKey: String, bytes: [UInt8]) {
        let rowKey = SuiteSealing(suite: "secrets", key: key).rowKey(for: name)
        let bytes = try store.read { r in try r.txn.get(r.layout.records, StoreLayout.recordKey(suite: "secrets", key: rowKey)) }
        return (rowKey, try #require(bytes))
    }

    @Test(arguments: [
        ("a byte of the ciphertext", 8 + Record.headerSize + 30), ("a byte of the nonce", 8 + Record.headerSize + 1),
        ("a byte of the tag", -1), ("a byte of the version", 8 + 3)
    ])
    func aChangedByteOfASealedRowIsDamage(_ what: String, _ offset: Int) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let store = try Self.sealedStore(tmp, key: key)
        var (rowKey, bytes) = try Self.sealedRow(store, key: key, name: Self.markerKey)
        let at = offset < 0 ? bytes.count + offset : offset
        bytes[at] ^= 0x20
        try store.write { w in try w.txn.put(w.layout.records, StoreLayout.recordKey(suite: "secrets", key: rowKey), bytes) }
        let secrets = try store.suite("secrets")
        for (call, body) in [
            ("get", { _ = try secrets.get(Self.markerKey, as: String.self) }), ("keys", { _ = try secrets.keys() }),
            ("set over it", { try secrets.set("y", forKey: Self.markerKey) })
        ] as [(String, () throws -> Void)] {
            do {
                try body()
                Issue.record("\(call) after changing \(what) was not refused")
            } catch let error as ConcordError {
                #expect(error.code == .damaged, "\(call), \(what): \(error)")
                #expect(error.suite == "secrets", "\(call), \(what): \(error)")
            }
        }
        #expect(try secrets.get("count", as: Int.self) == 42, "the other rows read as they are")
    }

    @Test func aSealedRecordMovedToAnotherKeyDoesNotOpen() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let store = try Self.sealedStore(tmp, key: key)
        let marker = try Self.sealedRow(store, key: key, name: Self.markerKey)
        let count = try Self.sealedRow(store, key: key, name: "count")
        try store.write { w in try w.txn.put(w.layout.records, StoreLayout.recordKey(suite: "secrets", key: count.rowKey), marker.bytes) }
        expectError(.damaged) { _ = try store.suite("secrets").get("count", as: Int.self) }
    }

    @Test func encryptingASuiteSealsItsValuesAgainInOneTransaction() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("a"))
        let suite = try store.suite("secrets")
        for i in 0..<50 { try suite.set("value-\(i)", forKey: "key-\(i)") }
        try suite.remove("key-0")
        let key = EncryptionKey.generate()
        let seqBefore = try store.read { $0.lastSeq }
        #expect(try suite.encrypt(with: key) == 49)
        #expect(try suite.encrypt(with: key) == 0, "encrypting again with the same key changes nothing")
        #expect(try store.read { $0.lastSeq } == seqBefore + 1 + 2 * 49, "the declaration, then a tombstone and a sealed value per key")
        #expect(try suite.keys() == (1..<50).map { "key-\($0)" }.sorted())
        for i in 1..<50 { #expect(try suite.get("key-\(i)", as: String.self) == "value-\(i)") }
        // What is stored and journaled in the clear is tombstones only.
        try store.read { r in
            try r.scanRecords(suite: "secrets") { _, key, row in
                #expect(row.record.isSealed || row.record.isTombstone, "\(key) holds a value in the clear")
                return true
            }
            try r.scanJournal(after: 0) { entry in
                if entry.suite == "secrets" { #expect(entry.record.isSealed || entry.record.isTombstone, "journal entry \(entry.seq) in the clear") }
                return true
            }
        }
        #expect(try store.check().isEmpty)
        let keyless = try Self.copy(of: store, tmp, "keyless")
        expectError(.suiteKeyMissing) { _ = try keyless.suite("secrets").get("key-1", as: String.self) }
    }

    @Test func anEncryptedSuiteRefusesWhatWouldLeakOrNotMerge() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("a"))
        let suite = try store.suite("secrets")
        try suite.declare(.counter, forKey: "launches")
        try suite.increment("launches")
        let key = EncryptionKey.generate()
        expectError(.policyMismatch, "a counter's state cannot be sealed into last-writer-wins") { try suite.encrypt(with: key) }
        #expect(try !suite.isEncrypted, "nothing was written")
        try suite.remove("launches")
        try suite.declare(nil, forKey: "launches")
        try suite.setDeviceLocal(true, forKey: "here")
        expectError(.invalidArgument, "a device-local declaration names its key in the clear") { try suite.encrypt(with: key) }
        try suite.setDeviceLocal(false, forKey: "here")
        try suite.encrypt(with: key)
        expectError(.policyMismatch, "a prefix declaration would show the start of the names") { try suite.declare(.max, forKeysWithPrefix: "high.") }
        expectError(.invalidArgument, "a device-local declaration would name the key in the clear") { try suite.setDeviceLocal(true, forKey: "here") }
        expectError(.invalidArgument) { try suite.setDeviceLocal(true, forKeysWithPrefix: "local.") }
        expectError(.invalidArgument) { try suite.setDeviceLocal(false, forKey: "here") }
        expectError(.unsupportedValue) { try suite.set("t", forKey: "session", expiresAfter: .seconds(60)) }
        try suite.set(1, forKey: "plain-lww")
        #expect(try suite.increment("plain-lww") == 2)
    }

    @Test func theKeyNeverShowsInItsDescriptionAndItsFileIsTheOwners() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let bytes = [UInt8](repeating: 0xab, count: 32)
        let key = try EncryptionKey(bytes: bytes)
        var dumped = ""
        dump(key, to: &dumped)
        for text in [key.description, String(reflecting: key), "\(key)", dumped] {
            #expect(!text.lowercased().contains("abababab"), "\(text)")
            #expect(text.contains(key.idText))
        }
        expectError(.invalidArgument) { _ = try EncryptionKey(bytes: bytes.dropLast()) }
        let path = tmp.path("k.key")
        try key.write(toFile: path)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600)
        expectError(.unwritable, "a key file is never overwritten") { try EncryptionKey.generate().write(toFile: path) }
        #expect(try EncryptionKey(contentsOfFile: path).id == key.id)
        try "not a key\n".write(toFile: tmp.path("bad.key"), atomically: true, encoding: .utf8)
        expectError(.invalidArgument) { _ = try EncryptionKey(contentsOfFile: tmp.path("bad.key")) }
        expectError(.unreadable) { _ = try EncryptionKey(contentsOfFile: tmp.path("missing.key")) }
    }

    @Test func observersWithTheKeyAreToldNamesAndValues() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let store = try Store(path: tmp.path("a"))
        let secrets = try store.suite("secrets")
        try secrets.encrypt(with: key)
        try await secrets.set("first", forKey: "token")
        var seen: [String?] = []
        for try await value in secrets.values(of: "token", as: String.self) {
            seen.append(value)
            if seen.count == 1 { try await secrets.set("second", forKey: "token") }
            if seen.count == 2 { break }
        }
        #expect(seen == ["first", "second"])
    }
}
