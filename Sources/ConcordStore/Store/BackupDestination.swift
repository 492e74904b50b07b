import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a backup goes: a new directory (made 0700), or an existing empty one (made 0700);
/// anything else is refused before a byte is written.
package enum BackupDestination {
    /// Why `path` cannot take a backup, or nil when it can (it does not exist, or is an empty directory).
    package static func refusal(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? nil : "cannot use it as the backup's directory: \(String(cString: strerror(errno)))"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "it exists and is not a directory; a backup goes into a new directory" }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            return "it exists and cannot be listed; a backup goes into a new directory"
        }
        guard entries.isEmpty else {
            return "it exists and is not empty (\(entries.count) entries); a backup goes into a new or empty directory, so nothing there is overwritten"
        }
        return nil
    }

    /// Creates `path` (and missing parents) with mode 0700, or takes an existing empty directory and
    /// makes it 0700; returns whether it created it.
    static func prepare(_ path: String) throws -> Bool {
        if let refusal = refusal(path) { throw ConcordError.io(path: path, reason: refusal) }
        var created = false
        if access(path, F_OK) != 0 {
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw ConcordError.io(path: path, reason: "cannot create the backup's directory: \(error.localizedDescription)")
            }
            created = true
        }
        guard chmod(path, 0o700) == 0 else {
            let reason = String(cString: strerror(errno))
            if created { rmdir(path) }
            throw ConcordError.io(path: path, reason: "cannot make the backup's directory private (chmod 700): \(reason)")
        }
        return created
    }

    /// Removes what a failed backup left: the store's files, and the directory when the backup created it.
    static func discard(_ path: String, created: Bool) {
        for file in ["data.mdb", "lock.mdb", "notify"] { unlink(path + "/" + file) }
        if created { rmdir(path) }
    }
}
