import Concord
import Foundation
import TestSupport
import Testing

/// `sync-tool keygen`, `encrypt` and `--key-file` / `CONCORD_KEY_FILE`, through the real binary: a
/// suite encrypted from the command line reads and writes with its key only, exit 3 without it and 7
/// with another, and nothing of it is in the replica's files.
@Suite("sync-tool: encrypted suites", .offThePool)
struct EncryptCommandTests {
    let tmp: TemporaryDirectory
    let dir: String
    let keyFile: String

    init() throws {
        tmp = try TemporaryDirectory()
        dir = tmp.path("laptop")
        keyFile = tmp.path("secrets.key")
    }

    func tool(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try run("sync-tool", arguments, environment: environment, timeout: 60)
    }

    @Test("keygen writes a key file of mode 0600 and never overwrites one")
    func keygen() throws {
        defer { tmp.remove() }
        let made = try tool(["keygen", keyFile])
        #expect(made.exited(0), "\(made)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600)
        let written = try Data(contentsOf: URL(fileURLWithPath: keyFile))
        #expect(made.stdout.contains(try EncryptionKey(contentsOfFile: keyFile).description))
        #expect(!made.stdout.contains(String(decoding: written, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), "the key is not printed")
        let again = try tool(["keygen", keyFile])
        #expect(again.status == 3 && again.stderr.contains("exists already"), "\(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyFile)) == written, "the key file is unchanged")
    }

    @Test("encrypt seals the values already there; with the key every command reads and writes, without it exit 3, with another key exit 7")
    func encryptAndUse() throws {
        defer { tmp.remove() }
        #expect(try tool(["keygen", keyFile]).exited(0))
        #expect(try tool(["keygen", tmp.path("other.key")]).exited(0))
        #expect(try tool(["set", dir, "secrets", "marker-key-c81d0f", "marker-value-47be9a"]).exited(0))
        let encrypted = try tool(["encrypt", dir, "secrets", "--key-file", keyFile])
        #expect(encrypted.exited(0) && encrypted.stdout.contains("1 stored values sealed again"), "\(encrypted)")
        #expect(try tool(["encrypt", dir, "secrets"]).status == 2, "encrypt without a key is a usage error")

        // With the key: get, set, list, log and why; by flag or by the environment.
        let got = try tool(["get", dir, "secrets", "marker-key-c81d0f", "--key-file", keyFile])
        #expect(got.exited(0) && got.stdout == "marker-value-47be9a\n", "\(got)")
        #expect(try tool(["set", dir, "secrets", "token-5e2b", "s3cret-91ad", "--key-file=\(keyFile)"]).exited(0))
        let environment = ["CONCORD_KEY_FILE": keyFile]
        let listed = try tool(["list", dir, "secrets"], environment: environment)
        #expect(listed.exited(0) && listed.stdout.contains("marker-key-c81d0f") && listed.stdout.contains("token-5e2b"), "\(listed)")
        let log = try tool(["log", dir, "secrets"], environment: environment)
        #expect(log.exited(0) && log.stdout.contains("token-5e2b"), "\(log)")
        let why = try tool(["why", dir, "secrets", "token-5e2b"], environment: environment)
        #expect(why.exited(0) && why.stdout.contains("s3cret-91ad"), "\(why)")

        // Without the key: exit 3 naming the suite, nothing written; another key: exit 7.
        for arguments in [["get", dir, "secrets", "token-5e2b"], ["set", dir, "secrets", "token-5e2b", "other"], ["list", dir, "secrets"]] {
            let refused = try tool(arguments)
            #expect(refused.status == 3 && refused.stderr.contains("suite \"secrets\" is encrypted"), "\(arguments): \(refused)")
            let wrong = try tool(arguments + ["--key-file", tmp.path("other.key")])
            #expect(wrong.status == 7 && wrong.stderr.contains("is not the key it is encrypted with"), "\(arguments): \(wrong)")
        }
        #expect(try tool(["get", dir, "secrets", "token-5e2b", "--key-file", keyFile]).stdout == "s3cret-91ad\n", "the refused set wrote nothing")
        // A suite in the clear needs no key, and the key file changes nothing for it.
        #expect(try tool(["set", dir, "prefs", "theme", "dark"]).exited(0))
        #expect(try tool(["get", dir, "prefs", "theme", "--key-file", keyFile]).stdout == "dark\n")

        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb"))
        // What was written after the suite was encrypted is sealed (the name of a value written before stays as a tombstone).
        for marker in ["token-5e2b", "s3cret-91ad"] { #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) is in data.mdb") }
        #expect(try tool(["check", dir]).exited(0))
    }

    @Test("rotate-key seals the suite again with the new key: the new key reads, the old one is exit 8, another key 7")
    func rotateKey() throws {
        defer { tmp.remove() }
        let newKeyFile = tmp.path("new.key")
        for file in [keyFile, newKeyFile, tmp.path("other.key")] { #expect(try tool(["keygen", file]).exited(0)) }
        #expect(try tool(["set", dir, "secrets", "token-3a1f", "s3cret-7c20"]).exited(0))
        #expect(try tool(["encrypt", dir, "secrets", "--key-file", keyFile]).exited(0))
        #expect(try tool(["incr", dir, "secrets", "launches", "2", "--key-file", keyFile]).exited(0))
        let usage = try tool(["rotate-key", dir, "secrets", "--key-file", keyFile])
        #expect(usage.status == 2 && usage.stderr.contains("--new-key-file"), "\(usage)")
        let wrong = try tool(["rotate-key", dir, "secrets", "--key-file", tmp.path("other.key"), "--new-key-file", newKeyFile])
        #expect(wrong.status == 7, "\(wrong)")
        let rotated = try tool(["rotate-key", dir, "secrets", "--key-file", keyFile, "--new-key-file", newKeyFile])
        #expect(rotated.exited(0) && rotated.stdout.contains("2 records sealed again"), "\(rotated)")

        let got = try tool(["get", dir, "secrets", "token-3a1f", "--key-file", newKeyFile])
        #expect(got.exited(0) && got.stdout == "s3cret-7c20\n", "\(got)")
        let old = try tool(["get", dir, "secrets", "token-3a1f", "--key-file", keyFile])
        #expect(old.status == 8 && old.stderr.contains("rotated") && old.stderr.contains("give the new key"), "\(old)")
        #expect(try tool(["set", dir, "secrets", "token-3a1f", "x", "--key-file", keyFile]).status == 8, "nothing is written with the old key")
        let back = try tool(["rotate-key", dir, "secrets", "--key-file", newKeyFile, "--new-key-file", keyFile])
        #expect(back.status == 3 && back.stderr.contains("rotated from"), "\(back)")
        let count = try tool(["get", dir, "secrets", "launches", "--key-file", newKeyFile])
        #expect(count.exited(0) && count.stdout == "2\n", "\(count)")
    }
}
