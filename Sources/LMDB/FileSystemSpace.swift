#if canImport(Glibc)
    import Glibc
#endif

/// How full the file system holding a path is, for telling a full disk from other I/O errors (LMDB
/// reports a write cut short by a full disk as `EIO`) and for naming it in the error.
///
/// ```swift
/// if FileSystemSpace.isFull(at: "/var/lib/app/settings") { print(FileSystemSpace.describe("/var/lib/app/settings")) }
/// ```
package enum FileSystemSpace {
    /// Below this many free bytes a failed write is put down to a full disk: a write cut short leaves
    /// less than one LMDB commit's worth of room.
    static let nearlyFull = 1 << 20

    /// The bytes this process may still write on the file system holding `path` (root may use the
    /// blocks reserved for it), or nil when it cannot be told.
    package static func freeBytes(at path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let blocks = geteuid() == 0 ? info.f_bfree : info.f_bavail
        return Int(clamping: UInt64(blocks) &* UInt64(info.f_frsize))
    }

    /// Whether the file system holding `path` has (almost) no room left.
    package static func isFull(at path: String) -> Bool {
        freeBytes(at: path).map { $0 < nearlyFull } ?? false
    }

    /// The directory the file system holding `path` is mounted at: the highest ancestor on the same device.
    package static func mountPoint(of path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return path }
        var point = path
        while point != "/" {
            let parent = point.lastIndex(of: "/").map { $0 == point.startIndex ? "/" : String(point[..<$0]) } ?? "/"
            var parentInfo = stat()
            guard stat(parent, &parentInfo) == 0, parentInfo.st_dev == info.st_dev else { break }
            point = parent
        }
        return point
    }

    /// "the file system mounted at M (which holds P, N bytes free)", for `path`.
    package static func describe(_ path: String) -> String {
        let point = mountPoint(of: path)
        let notes = (point == path ? [] : ["which holds \(path)"]) + (freeBytes(at: path).map { ["\($0) bytes free"] } ?? [])
        return "the file system mounted at \(point)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
    }
}
