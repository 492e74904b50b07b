import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

#if canImport(Glibc)
    import Glibc
#endif

/// `sync-tool backup`: a hot, consistent copy taken while other processes write, checked, private,
/// refusing to overwrite anything, leaving nothing behind when it fails.
@Suite("sync-tool backup", .offThePool)
struct BackupCommandTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("concord-backup") }

    /// `sync-tool list DIR SUITE --json` in a fresh process, as key → value.
    func contents(_ dir: String, _ suite: String) throws -> [String: Any] {
        let listed = try run("sync-tool", ["list", dir, suite, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        var out: [String: Any] = [:]
        for line in listed.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            out[try #require(object["key"] as? String)] = object["value"]
        }
        return out
    }

    func mode(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_mode & 0o777) : -1
    }

    /// The highest `done N` a writer printed so far: every write up to N was acknowledged.
    func acknowledged(_ writer: ChildProcess) -> Int {
        writer.completeLines.compactMap { $0.hasPrefix("done ") ? Int($0.dropFirst(5)) : nil }.max() ?? -1
    }

    @Test func copiesWhileWritersRunHoldingEveryAcknowledgedWriteAndAWholeSnapshot() throws {
        defer { tmp.remove() }
        let dir = tmp.path("live")
        #expect(Invocation(["set", dir, "app", "seed", "1"]).status == 0)
        let prefixes = ["w1", "w2"]
        let writers = try prefixes.map { try ChildProcess("concord-test-helper", ["write-forever", dir, "load", $0]) }
        defer {
            for w in writers { w.kill() }
            for w in writers { w.wait(timeout: 10) }
        }
        for w in writers { #expect(w.waitForLine(timeout: 60) { $0 == "done 50" }, "a writer did not get going: \(w.errorOutput)") }

        for (name, compact) in [("plain", false), ("compact", true)] {
            // Every write acknowledged before the copy begins must be in it.
            let before = writers.map(acknowledged)
            let dest = tmp.path("backup-\(name)")
            let backup = try run("sync-tool", ["backup", dir, dest, "--json"] + (compact ? ["--compact"] : []))
            #expect(backup.status == 0, "\(backup.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(backup.stdout.utf8)) as? [String: Any])
            #expect(report["compacted"] as? Bool == compact)

            let check = try run("sync-tool", ["check", dest])
            #expect(check.status == 0, "the \(name) copy is not sound: \(check.stderr)")
            let stored = try contents(dest, "load")
            for (index, prefix) in prefixes.enumerated() {
                // Each batch wrote PREFIX-i and PREFIX-last = i together: a whole snapshot holds every key
                // up to PREFIX-last and none beyond it.
                let last = try #require(stored["\(prefix)-last"] as? Int, "\(name): \(prefix)-last is missing")
                #expect(last >= before[index], "\(name): \(prefix) acknowledged \(before[index]) before the copy, the copy ends at \(last)")
                let missing = (0...last).filter { (stored["\(prefix)-\($0)"] as? String)?.hasPrefix("\($0)-") != true }
                #expect(missing.isEmpty, "\(name): \(prefix) keys up to \(last) missing or wrong in the copy: \(missing.prefix(5))")
                #expect(stored["\(prefix)-\(last + 1)"] == nil, "\(name): \(prefix)-\(last + 1) is in the copy without \(prefix)-last = \(last + 1)")
                #expect(report["records"] as? Int ?? 0 >= last + 2)
                // The writers were not stopped: they go on past the copy's snapshot.
                #expect(writers[index].waitForLine(timeout: 60) { $0 == "done \(last + 20)" }, "\(prefix) stalled after the copy")
            }
            #expect(report["replica"] as? String == (try Store(path: dir).replicaID.description), "a backup keeps the replica's identity")
            #expect(report["last_seq"] as? Int ?? 0 > 0)
        }
    }

    @Test func theCopyIsPrivateWhateverTheUmaskAndOpensAsTheSameReplica() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let dest = tmp.path("nested/backup")
        #expect(Invocation(["set", dir, "app", "theme", "dark"]).status == 0)
        let backup = try run("/bin/sh", ["-c", "umask 000; exec \"$0\" backup \"$1\" \"$2\"", Binaries.path("sync-tool"), dir, dest])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.lines.first == "backed up \(dir) to \(dest)")
        #expect(mode(dest) == 0o700)
        for file in ["data.mdb", "lock.mdb", "notify"] { #expect(mode(dest + "/" + file) == 0o600, "\(file)") }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dest)) == ["data.mdb", "lock.mdb", "notify"])

        let original = try run("sync-tool", ["info", dir, "--json"])
        let copy = try run("sync-tool", ["info", dest, "--json"])
        let a = try #require(try JSONSerialization.jsonObject(with: Data(original.stdout.utf8)) as? [String: Any])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(copy.stdout.utf8)) as? [String: Any])
        #expect(a["replica"] as? String == b["replica"] as? String)
        #expect(b["records"] as? Int == 1)
        #expect(try run("sync-tool", ["get", dest, "app", "theme"]).stdout == "dark\n")
        // The help says what sharing the identity means.
        #expect(Invocation(["backup", "--help"]).out.joined(separator: "\n").contains("same replica id"))
    }

    @Test func refusesADestinationThatHoldsSomethingAndWritesNothing() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        #expect(Invocation(["set", dir, "app", "k", "v"]).status == 0)

        let full = tmp.path("full")
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: false)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: full + "/notes.txt"))
        let refused = Invocation(["backup", dir, full])
        #expect(refused.status == 3)
        #expect(refused.err.first?.contains("not empty") == true, "\(refused.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: full) == ["notes.txt"])
        #expect(try String(contentsOfFile: full + "/notes.txt", encoding: .utf8) == "keep me")

        let file = tmp.path("a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(Invocation(["backup", dir, file]).status == 3)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
        #expect(Invocation(["backup", dir, dir]).status == 3, "a store is never copied onto itself")

        // A missing source is a store error, and DEST is not created for it.
        #expect(Invocation(["backup", tmp.path("absent"), tmp.path("d1")]).status == 4)
        #expect(!FileManager.default.fileExists(atPath: tmp.path("d1")))
        #expect(Invocation(["backup", dir, tmp.path("d2"), "--fast"]).status == 2)
        #expect(Invocation(["backup", dir]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: tmp.path("d2")))

        // An existing empty directory is taken, and made private.
        let empty = tmp.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        #expect(Invocation(["backup", dir, empty]).status == 0)
        #expect(mode(empty) == 0o700)
    }

    @Test func compactionLeavesFreePagesOutAndKeepsEveryRecord() throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        do {
            let suite = try Store(path: dir).suite("bulk")
            let blob = Data(repeating: 0x5a, count: 2000)
            try suite.batch { b in for i in 0..<2000 { try b.set(blob, forKey: "k\(i)") } }
            try suite.batch { b in for i in 0..<1900 { try b.remove("k\(i)") } }
        }
        let plain = Invocation(["backup", dir, tmp.path("plain"), "--json"])
        let compact = Invocation(["backup", dir, tmp.path("compact"), "--compact", "--json"])
        #expect(plain.status == 0 && compact.status == 0, "\(plain.err) \(compact.err)")
        let p = try #require(try JSONSerialization.jsonObject(with: Data(plain.out[0].utf8)) as? [String: Any])
        let c = try #require(try JSONSerialization.jsonObject(with: Data(compact.out[0].utf8)) as? [String: Any])
        let (plainBytes, compactBytes) = (try #require(p["bytes"] as? Int), try #require(c["bytes"] as? Int))
        #expect(compactBytes * 2 < plainBytes, "compacted \(compactBytes) bytes, plain \(plainBytes)")
        #expect(p["records"] as? Int == 2000 && c["records"] as? Int == 2000)
        let original = Invocation(["list", dir, "--json"]).out
        #expect(original.count == 100)
        #expect(Invocation(["list", tmp.path("plain"), "--json"]).out == original)
        #expect(Invocation(["list", tmp.path("compact"), "--json"]).out == original)
        #expect(Invocation(["log", tmp.path("compact")]).out == Invocation(["log", dir]).out)
    }

    @Test(arguments: ["ENOSPC", "EIO"])
    func aFailedCopyLeavesNothingBehind(_ error: String) throws {
        defer { tmp.remove() }
        let dir = tmp.path("r")
        #expect(Invocation(["set", dir, "app", "k", "v"]).status == 0)
        let dest = tmp.path("dest")
        let outcome = try ChildProcess("concord-test-helper", ["backup-fault", dir, dest, error]).wait()
        let code = error == "ENOSPC" ? ENOSPC : EIO
        #expect(outcome.lines.first?.hasPrefix("refused \(code) ") == true, "\(outcome.stdout) \(outcome.stderr)")
        #expect(outcome.lines.contains("check ok"))
        #expect(!FileManager.default.fileExists(atPath: dest), "a failed backup removes the directory it created")

        let empty = tmp.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let again = try ChildProcess("concord-test-helper", ["backup-fault", dir, empty, error]).wait()
        #expect(again.lines.first?.hasPrefix("refused \(code) ") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty, "a directory it did not create is left empty, not removed")
        #expect(Invocation(["backup", dir, empty]).status == 0, "the next backup succeeds")
    }
}
