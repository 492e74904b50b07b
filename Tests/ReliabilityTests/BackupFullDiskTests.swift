import Foundation
import TestSupport
import Testing

/// A backup onto a real full disk: a small file system of its own. The copy fails with a clear error
/// and leaves nothing behind; the original is untouched; a compacted copy that fits succeeds there.
@Suite(.offThePool) struct BackupFullDiskTests {
    @Test(
        .enabled(
            if: ScratchFileSystem.isAvailable,
            "mounting a small tmpfs or loop file system is not permitted here (needs root with CAP_SYS_ADMIN); the injected-ENOSPC backup test in SyncToolTests still runs"
        ))
    func aBackupThatDoesNotFitFailsCleanlyAndACompactedOneFits() throws {
        let tmp = try TemporaryDirectory("concord-backup-disk")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        // About 3 MiB of values, then most of them deleted: the data file keeps its size, its pages mostly free.
        let filled = try run("concord-test-helper", ["grow", dir, "bulk", "v", "300", "10000"])
        #expect(filled.exited(0) && filled.lines == ["ok 300"], "\(filled)")
        let reset = try run("sync-tool", ["reset", dir, "bulk"], timeout: 60)
        #expect(reset.exited(0), "\(reset)")
        #expect(try run("sync-tool", ["set", dir, "app", "kept", "yes"], timeout: 60).exited(0))

        let fs = try ScratchFileSystem.mount(megabytes: 1, under: tmp.root)
        defer { fs.unmount() }
        let dest = fs.mountPoint + "/backup"

        let full = try run("sync-tool", ["backup", dir, dest], timeout: 60)
        #expect(full.exited(4), "\(full)")
        #expect(full.stderr.contains("No space left on device"), "the error names the cause: \(full.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dest), "nothing is left on the full disk")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fs.mountPoint).isEmpty)
        try StoreContents.expectSound(dir)

        let compact = try run("sync-tool", ["backup", dir, dest, "--compact", "--json"], timeout: 60)
        #expect(compact.exited(0), "\(compact)")
        try StoreContents.expectSound(dest)
        #expect(try StoreContents.list(dest, suite: "app") == ["kept": "yes"])
        figure("backup onto a full disk", "\(fs.kind): plain copy refused (\(full.stderr.trimmed.suffix(60))); compacted copy: \(compact.stdout.trimmed)")
    }
}
