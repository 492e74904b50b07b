import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `--restore-rate`: a replica goes back in time mid-run, as an operator restores it from its backup
/// (see the architecture document, "Trust and time"). Each event picks a replica: with no backup of it
/// yet, it takes one (`sync-tool backup`, while its workers write); with one, it restores it:
///
/// 1. the syncs touching the replica end, and its workers are killed (a restore replaces what they write to);
/// 2. it syncs with a neighbour (another replica, or the hub), so every write it acknowledged exists elsewhere;
/// 3. its directory is replaced by the backup (`rm -rf DIR && mv BACKUP DIR`);
/// 4. it syncs with that neighbour again: the first sync that meets it. When its history had moved
///    past the backup, that sync must say it was restored; it resends everything both ways;
/// 5. its workers start again (the run's loop restarts them).
///
/// The run's invariants then still find nothing lost: whatever the restore took away came back from
/// the neighbour before anything was written on top of it.
struct RestoreFault {
    /// Backups taken, by replica name: the directory and the last seq it holds.
    var backups: [String: (path: String, lastSeq: UInt64)] = [:]
    var backupsTaken = 0
    var restores = 0
    /// The replicas restored at least once: their device-local writes since the backup are gone with
    /// it (no peer holds them, by design), so the final checks do not count those as lost.
    var restored: Set<String> = []
    /// Restores the first sync named (the replica's history had moved past its backup).
    var detected = 0
    /// Restores after which the replica's history had moved past the backup but the first sync said nothing.
    var undetected: [String] = []
    /// Restores whose replica had not moved past its backup (nothing to find).
    var unchanged = 0
}

extension Coordinator {
    /// One event of `--restore-rate` (see `RestoreFault`).
    func restoreFaultEvent() throws {
        let name = replicas.randomElement(using: &random)!
        guard let backup = restoreFault.backups[name] else {
            let destination = root + "/\(name).backup-\(restoreFault.backupsTaken)"
            restoreFault.backupsTaken += 1
            let result = try tool(["backup", path(name), destination, "--json"])
            if result.status == 0, let seq = Self.jsonInt(result.output, "last_seq") {
                restoreFault.backups[name] = (destination, UInt64(seq))
            } else {
                syncFailures.append("backup of \(name) failed (\(result.status)): \(result.output)")
            }
            return
        }
        restoreFault.backups[name] = nil
        // 1. Nothing else touches the replica.
        for s in syncs where s.pair.0 == name || s.pair.1 == name {
            waitOrKill(s.process, seconds: 60)
            record(s)
        }
        syncs.removeAll { $0.pair.0 == name || $0.pair.1 == name }
        for w in workers where w.replica == name && w.process.isRunning {
            kill(w.process.processIdentifier, SIGKILL)
            w.process.waitUntilExit()
            killedPerReplica[name, default: 0] += 1
        }
        // 2. Everything it acknowledged reaches the neighbour.
        let neighbour = hub == nil ? replicas.first { $0 != name }! : "hub"
        let before = try restoreSync(name, neighbour)
        guard before.status == 0 else {
            syncFailures.append("the sync before restoring \(name) failed (\(before.status)): \(before.output)")
            try? FileManager.default.removeItem(atPath: backup.path)
            return
        }
        let info = try tool(["info", path(name), "--json"])
        let seqBefore = UInt64(Self.jsonInt(info.output, "last_seq") ?? 0)
        // 3. The restore, as the backup's own advice says.
        try FileManager.default.removeItem(atPath: path(name))
        try FileManager.default.moveItem(atPath: backup.path, toPath: path(name))
        restoreFault.restores += 1
        restoreFault.restored.insert(name)
        // 4. The first sync that meets it.
        let after = try restoreSync(name, neighbour)
        guard after.status == 0 else {
            syncFailures.append("the first sync after restoring \(name) failed (\(after.status)): \(after.output)")
            return
        }
        let named = after.output.contains("\"restored\":[\"A\"")
        if seqBefore <= backup.lastSeq {
            restoreFault.unchanged += 1
        } else if named {
            restoreFault.detected += 1
        } else {
            restoreFault.undetected.append(
                "\(name) restored to seq \(backup.lastSeq) after reaching \(seqBefore): the first sync did not say so: \(after.output)")
        }
        progress("restored \(name) from its backup (seq \(seqBefore) back to \(backup.lastSeq))\(named ? ", found by the first sync" : "")")
    }

    /// `sync-tool sync DIR NEIGHBOUR --json` (the neighbour over ssh, or the hub), to completion.
    private func restoreSync(_ name: String, _ neighbour: String) throws -> (status: Int32, output: String) {
        let arguments = hub?.syncArguments(path(name)) ?? (syncArguments(name, neighbour) + ["--json"])
        return try tool(arguments)
    }

    /// Runs `sync-tool` to completion; its standard output and error together.
    func tool(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binDirectory + "/sync-tool")
        p.arguments = arguments
        p.environment = childEnvironment
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The integer field `name` of the last JSON object line in `text`.
    static func jsonInt(_ text: String, _ name: String) -> Int? {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return nil }
        return object[name] as? Int
    }
}
