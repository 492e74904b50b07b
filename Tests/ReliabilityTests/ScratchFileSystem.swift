import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A small file system of its own, mounted for a test that fills it: a tmpfs, or, where tmpfs cannot be
/// mounted, an ext4 image on a loop device. Both need root (CAP_SYS_ADMIN).
struct ScratchFileSystem {
    let mountPoint: String
    let kind: String
    private let image: String?

    /// Mounts a file system of `megabytes` at a new directory under `parent`; throws with every reason it could not.
    static func mount(megabytes: Int, under parent: String) throws -> ScratchFileSystem {
        let point = parent + "/mnt"
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        let tmpfs = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", point], timeout: 60)
        if tmpfs.exited(0) { return ScratchFileSystem(mountPoint: point, kind: "tmpfs of \(megabytes) MiB", image: nil) }
        let image = parent + "/disk.img"
        let made = try run("/sbin/mkfs.ext4", ["-q", "-F", image, "\(megabytes * 1024)"], timeout: 60)
        if made.exited(0) {
            let loop = try run("/bin/mount", ["-o", "loop", image, point], timeout: 60)
            if loop.exited(0) {
                chmod(point, 0o700)
                return ScratchFileSystem(mountPoint: point, kind: "ext4 loop device of \(megabytes) MiB", image: image)
            }
            throw ScratchFileSystemError(reason: "mount -t tmpfs: \(tmpfs.stderr.trimmed); mount -o loop: \(loop.stderr.trimmed)")
        }
        throw ScratchFileSystemError(reason: "mount -t tmpfs: \(tmpfs.stderr.trimmed); mkfs.ext4: \(made.stderr.trimmed)")
    }

    func unmount() {
        if (try? run("/bin/umount", [mountPoint], timeout: 60))?.exited(0) != true {
            _ = try? run("/bin/umount", ["-l", mountPoint], timeout: 60)
        }
        if let image { try? FileManager.default.removeItem(atPath: image) }
    }

    /// Whether this machine lets the tests mount one (probed once).
    static let isAvailable: Bool = {
        guard let tmp = try? TemporaryDirectory("concord-mount-probe") else { return false }
        defer { tmp.remove() }
        guard let fs = try? mount(megabytes: 1, under: tmp.root) else { return false }
        fs.unmount()
        return true
    }()
}

struct ScratchFileSystemError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "cannot mount a small file system: \(reason)" }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
