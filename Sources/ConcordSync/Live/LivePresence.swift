import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A live session's registration in a replica directory: "this replica is live with `peer` now".
///
/// Each live session (a `LiveSync` with its peer, both directories of a live directory sync, a live
/// `serve` with its client) holds one file `DIR/live/PEER.PID.RANDOM` with an exclusive `flock` on
/// it for as long as it runs. Anyone can tell whether a registration is current without asking the
/// process: a lock that can be taken belongs to a session that ended — released by the kernel when
/// its process exits, however it died (a SIGKILL included) — so its file is stale and is removed.
/// The file is locked under a temporary name and only then renamed into place, so a reader never
/// finds a current registration unlocked.
///
/// <!-- assume: let peer = phone.replicaID -->
/// ```swift
/// let presence = try LivePresence(directory: store.directory, peer: peer)   // held while live
/// LivePresence.livePeers(in: store.directory)                                 // [peer]
/// ```
package final class LivePresence: Sendable {
    private let fd: Int32
    private let path: String

    /// The directory inside a replica that holds the registrations.
    static func folder(_ directory: String) -> String { directory + "/live" }

    /// Registers a live session of the replica at `directory` with `peer`, until this is released.
    package init(directory: String, peer: ReplicaID) throws {
        let folder = Self.folder(directory)
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw ConcordError.io(path: folder, reason: "cannot create the directory of live sessions: \(String(cString: strerror(errno)))")
        }
        let name = "\(peer).\(getpid()).\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let temporary = folder + "/." + name + ".tmp"
        let fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw ConcordError.io(path: temporary, reason: "cannot register the live session: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, rename(temporary, folder + "/" + name) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            close(fd)
            throw ConcordError.io(path: temporary, reason: "cannot register the live session: \(reason)")
        }
        self.fd = fd
        self.path = folder + "/" + name
    }

    deinit {
        unlink(path)
        close(fd) // releases the lock
    }

    /// The peers the replica at `directory` has a live session with now. Registrations of sessions that
    /// ended (their lock is free) are removed on the way.
    package static func livePeers(in directory: String) -> Set<ReplicaID> {
        let folder = folder(directory)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var live = Set<ReplicaID>()
        for name in names {
            let path = folder + "/" + name
            // A temporary name is being registered (left alone, so its owner's lock never meets this
            // one), unless it is a minute old: a process killed while registering left it.
            if name.hasPrefix("."),
                let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                modified.timeIntervalSinceNow > -60
            {
                continue
            }
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if flock(fd, LOCK_SH | LOCK_NB) != 0 {
                // Held: a session runs (or is registering, under its temporary name).
                if !name.hasPrefix("."), let peer = ReplicaID(hex: String(name.prefix(32))) { live.insert(peer) }
                continue
            }
            unlink(path) // its session ended without removing it (killed)
        }
        return live
    }
}
