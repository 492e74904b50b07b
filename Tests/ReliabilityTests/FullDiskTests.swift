import Concord
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real full disk: a store on a small file system of its own, filled to the last byte. Writes are
/// refused with a clear error, nothing is damaged, and writes succeed again once space returns.
/// (The injected-ENOSPC variants in `FaultInjectionTests` run everywhere.)
@Suite(.offThePool) struct FullDiskTests {
    @Test(
        .enabled(
            if: ScratchFileSystem.isAvailable,
            "mounting a small tmpfs or loop file system is not permitted here (needs root with CAP_SYS_ADMIN); the injected-ENOSPC tests in FaultInjectionTests still run"
        ))
    func fullDiskRefusesWritesClearlyAndRecovers() throws {
        let tmp = try TemporaryDirectory("concord-full-disk")
        defer { tmp.remove() }
        let fs = try ScratchFileSystem.mount(megabytes: 4, under: tmp.root)
        defer { fs.unmount() }
        let dir = fs.mountPoint + "/replica"
        let filler = fs.mountPoint + "/filler"

        let (expected, refusedKeys, summary) = try fillThenFree(dir: dir, filler: filler)

        // A fresh process: sound, every acknowledged write present with its value, no refused one.
        try StoreContents.expectSound(dir)
        let stored = try StoreContents.list(dir, suite: "disk")
        StoreContents.expectEqual(stored, expected)
        for key in refusedKeys { #expect(stored[key] == nil, "\(key) was refused, so it must not be stored") }
        figure("full disk", "\(fs.kind): \(summary)")
    }

    static let mountable = ScratchFileSystem.isAvailable

    /// Fills the file system at `point` until at most `leaving` bytes are free (a file `filler`).
    static func fill(_ point: String, leaving: Int) throws {
        _ = FileManager.default.createFile(atPath: point + "/filler", contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: point + "/filler"))
        defer { try? handle.close() }
        var chunk = Data(repeating: 0x66, count: 64 << 10)
        while let free = FileSystemFree.bytes(point), free > leaving {
            if free - leaving < chunk.count { chunk = Data(repeating: 0x66, count: max(4096, free - leaving)) }
            guard (try? handle.write(contentsOf: chunk)) != nil else { break }
        }
    }

    @Test(
        "creating a store on a full file system is refused with 'no space left on' the file system, leaving nothing behind (no SIGBUS)",
        .enabled(if: mountable, "mounting a small tmpfs or loop file system is not permitted here (needs root with CAP_SYS_ADMIN)"),
        arguments: [0, 8 << 10, 20 << 10])
    func creatingOnAFullFileSystem(_ free: Int) throws {
        let tmp = try TemporaryDirectory("concord-full-create")
        defer { tmp.remove() }
        let fs = try ScratchFileSystem.mount(megabytes: 1, under: tmp.root)
        defer { fs.unmount() }
        try Self.fill(fs.mountPoint, leaving: free)
        let dir = fs.mountPoint + "/replica"
        let outcome = try run("sync-tool", ["set", dir, "app", "key", "value"], timeout: 60)
        #expect(!outcome.signaled, "no crash inside liblmdb: \(outcome)")
        #expect(outcome.exited(4), "\(outcome)")
        #expect(outcome.stderr.contains("no space left on the file system mounted at \(fs.mountPoint)"), "names the full file system: \(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").count == 1, "one line: \(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir), "nothing is left behind: \((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])")
        try FileManager.default.removeItem(atPath: fs.mountPoint + "/filler")
        #expect(try run("sync-tool", ["set", dir, "app", "key", "value"], timeout: 60).exited(0), "with space again, the store is created")
        try StoreContents.expectSound(dir)
        figure("creating a store on a full disk (\(free) bytes free)", outcome.stderr.trimmed)
    }

    @Test(
        "a commit that fills the disk says the disk is full (not 'Input/output error'), and commits nothing",
        .enabled(if: mountable, "mounting a small tmpfs or loop file system is not permitted here (needs root with CAP_SYS_ADMIN)"))
    func commitOnAFullDiskSaysSo() throws {
        let tmp = try TemporaryDirectory("concord-full-commit")
        defer { tmp.remove() }
        let fs = try ScratchFileSystem.mount(megabytes: 2, under: tmp.root)
        defer { fs.unmount() }
        let dir = fs.mountPoint + "/replica"
        #expect(try run("sync-tool", ["set", dir, "app", "before", "1"], timeout: 60).exited(0))
        // Room for part of the commit only: LMDB's write of its pages is cut short.
        try Self.fill(fs.mountPoint, leaving: 40 << 10)
        let big = String(repeating: "x", count: 100_000)
        let outcome = try run("sync-tool", ["set", dir, "app", "big", big], timeout: 60)
        #expect(outcome.exited(4), "\(outcome)")
        #expect(!outcome.stderr.contains("Input/output error"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("No space left on device") && outcome.stderr.contains("is full"), "says the disk is full: \(outcome.stderr)")
        try FileManager.default.removeItem(atPath: fs.mountPoint + "/filler")
        try StoreContents.expectSound(dir)
        StoreContents.expectEqual(try StoreContents.list(dir, suite: "app"), ["before": "1"])
        figure("commit on a full disk", outcome.stderr.trimmed)
    }

    /// Runs the store in this process (and releases it before the file system is unmounted).
    private func fillThenFree(dir: String, filler: String) throws -> (expected: [String: String], refused: [String], summary: String) {
        let store = try Store(path: dir)
        let suite = try store.suite("disk")
        var expected: [String: String] = [:]
        func value(_ key: String, _ bytes: Int) -> String { key + ":" + String(repeating: "x", count: bytes) }

        for i in 0..<20 {
            try suite.set(value("before-\(i)", 1000), forKey: "before-\(i)")
            expected["before-\(i)"] = value("before-\(i)", 1000)
        }

        // Take every byte left.
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        let chunk = Data(repeating: 0x66, count: 16 << 10)
        var fillerBytes = 0
        while (try? handle.write(contentsOf: chunk)) != nil { fillerBytes += chunk.count }
        try handle.close()

        // Write until the disk refuses (free pages inside the file may take a few more writes first).
        var acceptedWhileFull = 0
        var refused: [String] = []
        var firstError: ConcordError?
        for i in 0..<2_000 {
            let key = "full-\(i)"
            do {
                try suite.set(value(key, 8 << 10), forKey: key)
                expected[key] = value(key, 8 << 10)
                acceptedWhileFull += 1
            } catch let error as ConcordError {
                refused.append(key)
                firstError = error
                break
            }
        }
        let error = try #require(firstError, "a 4 MiB file system must fill up within 2,000 writes of 8 KiB")
        guard error.code == .storage, let code = error.systemCode else {
            Issue.record("a full disk must surface as the storage engine's error it is, not \(error)")
            return (expected, refused, "")
        }
        #expect(code == ENOSPC, "the error is ENOSPC: \(error)")
        #expect(error.description.contains("No space left on device"), "the message says the disk is full: \(error)")
        for i in 0..<3 {
            let key = "still-full-\(i)"
            expectError(.storage, "writes keep failing while the disk is full") {
                try suite.set(value(key, 8 << 10), forKey: key)
            }
            refused.append(key)
        }
        // Nothing damaged, and reads still work while the disk is full.
        let whileFull = try store.integrityReport()
        #expect(whileFull.isSound, "check passes on a full disk: \(whileFull.problems)")
        #expect(try suite.get("before-0", as: String.self) == expected["before-0"])
        try StoreContents.expectSound(dir)

        // Space returns: writes succeed again, in the same process.
        try FileManager.default.removeItem(atPath: filler)
        for i in 0..<3 {
            try suite.set(value("after-\(i)", 8 << 10), forKey: "after-\(i)")
            expected["after-\(i)"] = value("after-\(i)", 8 << 10)
        }
        let afterwards = try store.integrityReport()
        #expect(afterwards.isSound, "check passes after space returned: \(afterwards.problems)")
        let summary =
            "filler took \(fillerBytes >> 10) KiB; \(acceptedWhileFull) more writes of 8 KiB fit in free pages, then refused: \(error); check passed while full; after freeing space 3 writes succeeded"
        return (expected, refused, summary)
    }
}

/// Free bytes on a file system, as root sees them (the tests run as root to mount).
enum FileSystemFree {
    static func bytes(_ path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(info.f_bfree) * Int(info.f_frsize)
    }
}
