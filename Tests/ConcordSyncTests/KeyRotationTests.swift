import Concord
import Foundation
import TestSupport
import Testing

/// Rotating an encrypted suite's key: the records are sealed again with the new key, the declaration
/// that names it syncs, a replica holding only the old key is told to update it, and records sealed
/// with the old key after the rotation (by a replica that had not yet learned of it) are kept and
/// read where the old key is given too.
@Suite(.offThePool) struct KeyRotationTests {
    static let markerValue = "marker-value-rot-6d02"

    /// The sealed rows of `suite` in `store`, by their keys.
    static func sealedRows(_ store: Store, _ suite: String = "secrets") throws -> [String: Record] {
        try store.read { r in
            var out: [String: Record] = [:]
            try r.scanRecords(suite: suite) { _, key, row in
                if row.record.isSealed { out[key] = row.record }
                return true
            }
            return out
        }
    }

    @Test func rotatingSealsEveryRecordAgainAndAReplicaWithTheOldKeyOnlyIsToldToUpdateIt() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let (oldKey, newKey) = (EncryptionKey.generate(), EncryptionKey.generate())
        let a = try Replicas.open(tmp.path("a"), keys: ["secrets": oldKey])
        let b = try Replicas.open(tmp.path("b"), keys: ["secrets": oldKey])
        let secrets = try a.suite("secrets")
        try secrets.encrypt(with: oldKey)
        try secrets.set(Self.markerValue, forKey: "token")
        try secrets.declare(.counter, forKey: "launches")
        try secrets.increment("launches", by: 4)
        try Synchronizer().sync(a, b)
        try b.suite("secrets").increment("launches", by: 10)
        try Synchronizer().sync(a, b)

        expectError(.invalidArgument, "a suite in the clear has no key to rotate") { try a.suite("plain").rotateKey(to: newKey) }
        #expect(try secrets.rotateKey(to: newKey) == 3, "the token, and the counter's two contributions")
        let rows = try Self.sealedRows(a)
        #expect(rows.count == 3)
        let (newSealing, oldSealing) = (SuiteSealing(suite: "secrets", key: newKey), SuiteSealing(suite: "secrets", key: oldKey))
        for (key, record) in rows {
            #expect((try? newSealing.openStored(record, storedKey: key)) != nil, "\(key) opens with the new key")
            #expect((try? oldSealing.openStored(record, storedKey: key)) == nil, "no record opens with the old key any more")
        }
        #expect(try secrets.get("token", as: String.self) == Self.markerValue)
        #expect(try secrets.get("launches", as: Int.self) == 14)
        expectError(.invalidArgument, "a key the suite was rotated from is not a new key") { try secrets.rotateKey(to: oldKey) }
        #expect(try secrets.rotateKey(to: newKey) == 0, "nothing is sealed with another key")

        // Only with the new key does a replica read the suite now.
        let fresh = try Replicas.open(tmp.path("fresh"), keys: ["secrets": newKey])
        try Synchronizer().sync(a, fresh)
        #expect(try fresh.suite("secrets").get("token", as: String.self) == Self.markerValue)
        #expect(try fresh.suite("secrets").get("launches", as: Int.self) == 14)
        try Synchronizer().sync(a, b)
        do {
            _ = try b.suite("secrets").get("token", as: String.self)
            Issue.record("b holds only the old key and read the suite")
        } catch let error as ConcordError {
            #expect(error.code == .suiteKeyRotated && error.suite == "secrets" && "\(error)".contains("give the new key"), "\(error)")
        }
        expectError(.suiteKeyRotated, "nothing is written with the old key") { try b.suite("secrets").set("x", forKey: "token") }
        let other = try Replicas.open(tmp.path("other"), keys: ["secrets": .generate()])
        try Synchronizer().sync(a, other)
        expectError(.suiteKeyMismatch, "a key the suite never had is another key") { _ = try other.suite("secrets").get("token", as: String.self) }
        try b.suite("secrets").useKey(newKey)
        #expect(try b.suite("secrets").get("token", as: String.self) == Self.markerValue)
        #expect(try b.suite("secrets").get("launches", as: Int.self) == 14)
    }

    @Test func recordsSealedWithTheOldKeyAfterTheRotationAreKeptAndReadWithTheOldKeyGiven() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let (oldKey, newKey) = (EncryptionKey.generate(), EncryptionKey.generate())
        let clock = ManualClock()
        let a = try Replicas.open(tmp.path("a"), clock: clock.read, keys: ["secrets": oldKey])
        let b = try Replicas.open(tmp.path("b"), clock: clock.read, keys: ["secrets": oldKey])
        try a.suite("secrets").encrypt(with: oldKey)
        try a.suite("secrets").set("first", forKey: "theme")
        try a.suite("secrets").declare(.counter, forKey: "launches")
        try a.suite("secrets").increment("launches")
        try Synchronizer().sync(a, b)

        clock.advance(.milliseconds(5))
        try a.suite("secrets").rotateKey(to: newKey)
        // b has not learned of the rotation: it writes under the old key, later.
        clock.advance(.milliseconds(5))
        try b.suite("secrets").set("b later", forKey: "theme")
        try b.suite("secrets").increment("launches", by: 100)
        try Synchronizer().sync(a, b)
        #expect(try a.conflicts(suite: "secrets").isEmpty)

        // a holds both keys: b's records, sealed with the old one, merge by version with the rest.
        #expect(try a.suite("secrets").get("theme", as: String.self) == "b later")
        #expect(try a.suite("secrets").get("launches", as: Int.self) == 101)
        // A replica holding only the new key cannot open them: its scans say so rather than leave them out.
        let fresh = try Replicas.open(tmp.path("fresh"), keys: ["secrets": newKey])
        try Synchronizer().sync(a, fresh)
        expectError(.suiteKeyMissing, "a record sealed with the old key is not silently left out") { _ = try fresh.suite("secrets").keys() }
        try fresh.suite("secrets").useKey(oldKey)
        #expect(try fresh.suite("secrets").snapshot() == ["theme": .string("b later"), "launches": .int(101)])
        // Rotating to the current key where the old one is held seals them with the new key too.
        #expect(try a.suite("secrets").rotateKey(to: newKey) == 2)
        let onlyNew = try Replicas.open(tmp.path("only-new"), keys: ["secrets": newKey])
        try Synchronizer().sync(a, onlyNew)
        #expect(try onlyNew.suite("secrets").snapshot() == ["theme": .string("b later"), "launches": .int(101)])
        try b.suite("secrets").useKey(newKey)
        try Synchronizer().sync(a, b)
        #expect(try b.suite("secrets").snapshot() == ["theme": .string("b later"), "launches": .int(101)])
    }
}
