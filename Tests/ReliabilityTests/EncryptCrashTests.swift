import Foundation
import TestSupport
import Testing

@testable import Concord

/// A process encrypting a suite that holds values in the clear, killed (SIGKILL) at each point of the
/// transaction that seals them: the replica it leaves holds the suite in the clear, every value as it
/// was, or encrypted, every value sealed and readable with the key, never a mix.
@Suite(.offThePool) struct EncryptCrashTests {
    @Test(arguments: ["declared", "halfway", "sealed", "committed"])
    func killedWhileEncryptingLeavesTheSuiteInTheClearOrSealed(_ checkpoint: String) throws {
        let tmp = try TemporaryDirectory("concord-encrypt-crash")
        defer { tmp.remove() }
        let dir = tmp.path("a")
        do {
            let store = try Store(path: dir)
            try store.suite("secrets").batch { b in for i in 0..<200 { try b.set("value-\(i)", forKey: "key-\(i)") } }
        }
        let key = EncryptionKey.generate()
        try key.write(toFile: tmp.path("secrets.key"))

        let encrypter = try ChildProcess("concord-test-helper", ["encrypt-stop", dir, "secrets", tmp.path("secrets.key"), checkpoint])
        try #require(encrypter.waitForLine { $0.hasPrefix("at \(checkpoint)") }, "the encryption reaches \(checkpoint): \(encrypter.errorOutput)")
        encrypter.kill()
        encrypter.process.waitUntilExit()

        let keyless = try Store(path: dir)
        let suite = try keyless.suite("secrets")
        if checkpoint == "committed" {
            #expect(try suite.isEncrypted)
            expectError(.suiteKeyMissing) { _ = try suite.get("key-1", as: String.self) }
            try suite.useKey(key)
        } else {
            #expect(try !suite.isEncrypted, "killed at \(checkpoint), before the commit")
        }
        #expect(try suite.keys().count == 200)
        for i in 0..<200 { #expect(try suite.get("key-\(i)", as: String.self) == "value-\(i)") }
        try keyless.read { r in
            try r.scanRecords(suite: "secrets") { _, name, row in
                #expect(row.record.isSealed == (checkpoint == "committed") || row.record.isTombstone, "\(name) after a kill at \(checkpoint)")
                return true
            }
        }
        #expect(try keyless.check().isEmpty)
        // A suite left in the clear encrypts on the next try.
        if checkpoint != "committed" { #expect(try suite.encrypt(with: key) == 200) }
    }

    /// A process rotating the key of an encrypted suite, killed at each point of the transaction:
    /// the suite is left sealed with the old key, every record opening with it, or with the new one.
    @Test(arguments: ["declared", "halfway", "sealed", "committed"])
    func killedWhileRotatingLeavesTheSuiteUnderTheOldKeyOrTheNew(_ checkpoint: String) throws {
        let tmp = try TemporaryDirectory("concord-rotate-crash")
        defer { tmp.remove() }
        let dir = tmp.path("a")
        let (oldKey, newKey) = (EncryptionKey.generate(), EncryptionKey.generate())
        try oldKey.write(toFile: tmp.path("old.key"))
        try newKey.write(toFile: tmp.path("new.key"))
        do {
            let store = try Store(path: dir)
            let suite = try store.suite("secrets")
            try suite.encrypt(with: oldKey)
            try suite.batch { b in for i in 0..<200 { try b.set("value-\(i)", forKey: "key-\(i)") } }
            try suite.declare(.counter, forKey: "launches")
            try suite.increment("launches", by: 7)
        }

        let rotater = try ChildProcess(
            "concord-test-helper", ["rotate-stop", dir, "secrets", tmp.path("old.key"), tmp.path("new.key"), checkpoint])
        try #require(rotater.waitForLine { $0.hasPrefix("at \(checkpoint)") }, "the rotation reaches \(checkpoint): \(rotater.errorOutput)")
        rotater.kill()
        rotater.process.waitUntilExit()

        let committed = checkpoint == "committed"
        var options = Store.Options()
        options.suiteKeys["secrets"] = committed ? newKey : oldKey
        let store = try Store(path: dir, options: options)
        let suite = try store.suite("secrets")
        #expect(try suite.keys().count == 201, "killed at \(checkpoint)")
        for i in 0..<200 { #expect(try suite.get("key-\(i)", as: String.self) == "value-\(i)") }
        #expect(try suite.get("launches", as: Int.self) == 7)
        let sealing = SuiteSealing(suite: "secrets", key: committed ? newKey : oldKey)
        try store.read { r in
            try r.scanRecords(suite: "secrets") { _, key, row in
                #expect((try? sealing.openStored(row.record, storedKey: key)) != nil, "\(key) after a kill at \(checkpoint)")
                return true
            }
        }
        #expect(try store.check().isEmpty)
        if !committed { #expect(try suite.rotateKey(to: newKey) == 201, "a rotation cut short runs whole on the next try") }
    }
}
