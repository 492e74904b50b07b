import Foundation

/// What an operator does to a replica directory that goes back in time, for the tests that prove
/// peers notice it: a backup with `sync-tool backup`, a restore in place of the original (as the
/// backup's own advice says), and a `cp -a` copy.
///
/// ```swift
/// try ReplicaRestore.backup(dir, to: saved)
/// // … more writes and syncs …
/// try ReplicaRestore.restore(dir, from: saved)
/// ```
public enum ReplicaRestore {
    /// `sync-tool backup DIR DEST` in a child process; throws when it fails.
    public static func backup(_ directory: String, to destination: String) throws {
        let result = try run("sync-tool", ["backup", directory, destination])
        guard result.status == 0 else { throw Failure("sync-tool backup failed (\(result.status)): \(result.stderr)") }
    }

    /// Moves the original away and the backup into its place (`rm -rf DIR && mv BACKUP DIR`).
    /// No process may hold the replica open.
    public static func restore(_ directory: String, from backup: String) throws {
        try FileManager.default.removeItem(atPath: directory)
        try FileManager.default.moveItem(atPath: backup, toPath: directory)
    }

    /// `cp -a DIR COPY`: a copy that keeps the original's replica id, files, modes and times.
    public static func copy(_ directory: String, to copy: String) throws {
        let result = try run("/bin/cp", ["-a", directory, copy])
        guard result.status == 0 else { throw Failure("cp -a failed (\(result.status)): \(result.stderr)") }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
