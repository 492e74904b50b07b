import Foundation
import LMDB

#if canImport(Glibc)
    import Glibc
#endif

/// Creates a replica directory (0700) or checks that an existing one is safe to use:
/// not writable by group or others, and its data files are regular files, not symlinks.
enum StoreDirectory {
    /// Returns the directory's canonical path, and whether this call created the directory.
    static func prepare(_ path: String, create: Bool) throws -> (path: String, created: Bool) {
        var created = false
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw ConcordError.io(path: path, reason: String(cString: strerror(errno))) }
            guard create else { throw ConcordError.io(path: path, reason: "no store here (the directory does not exist)") }
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw ConcordError.io(path: path, reason: "cannot create the store directory: \(error.localizedDescription)")
            }
            chmod(path, 0o700)
            created = true
        } else if info.st_mode & S_IFMT == S_IFLNK {
            guard stat(path, &info) == 0 else { throw ConcordError.io(path: path, reason: "a dangling symlink") }
        }
        // `info` describes the directory itself now, unless this call created it.
        guard !created || stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw ConcordError.io(path: path, reason: "not a directory")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw ConcordError.insecure(
                path: path, reason: "the directory is writable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 700 on it")
        }
        var dataInfo = stat()
        var hasData = false
        var hasNotify = false
        for file in ["data.mdb", "lock.mdb", "notify"] {
            let filePath = path + "/" + file
            var fileInfo = stat()
            guard lstat(filePath, &fileInfo) == 0 else { continue }
            if fileInfo.st_mode & S_IFMT != S_IFREG {
                throw ConcordError.insecure(path: filePath, reason: "it is not a regular file (a symlink or a device); a store's files must be its own")
            }
            if file == "data.mdb" { (dataInfo, hasData) = (fileInfo, true) }
            if file == "notify" { hasNotify = true }
        }
        if hasData && dataInfo.st_size == 0 && (!create || hasNotify) {
            // LMDB would take an empty data file for a new one and silently start an empty store.
            throw ConcordError.damaged(
                path: path,
                reason:
                    "data.mdb is empty, so the data file was truncated (even a new store holds its two meta pages); restore it from a backup, or move the directory away to start a new store"
            )
        }
        if !create && !hasData {
            throw ConcordError.io(path: path, reason: "no store here (no data.mdb in the directory)")
        }
        guard let resolved = realpath(path, nil) else { throw ConcordError.io(path: path, reason: String(cString: strerror(errno))) }
        defer { free(resolved) }
        return (String(cString: resolved), created)
    }

    /// Removes what a failed creation of the store at `path` left (its files, then the directory,
    /// which this process created: never anything else), and explains a full disk.
    static func abandon(_ path: String, after error: any Error) -> any Error {
        for file in ["data.mdb", "lock.mdb", "notify"] { unlink(path + "/" + file) }
        rmdir(path)
        var full = FileSystemSpace.isFull(at: parent(of: path))
        if let error = error as? ConcordError, error.code == .storage, error.systemCode == ENOSPC { full = true }
        guard full else { return error }
        return ConcordError.storage(
            code: ENOSPC, operation: "creating the store at \(path)",
            message: "no space left on \(FileSystemSpace.describe(parent(of: path))); free some space and try again (nothing was left behind)")
    }

    /// "no space left on the file system mounted at …" when the file system holding `directory` has
    /// (almost) no room left (for telling a full disk from other failures of a write), else nil.
    package static func noSpaceLeft(at directory: String) -> String? {
        FileSystemSpace.isFull(at: directory) ? "no space left on \(FileSystemSpace.describe(directory))" : nil
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
