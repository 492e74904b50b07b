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
}
