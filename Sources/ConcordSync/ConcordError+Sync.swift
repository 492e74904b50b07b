/// The sync layer's errors: impossible syncs, refused records and batches, bundles, sessions.
extension ConcordError {
    /// Both sides of a sync are one replica.
    package static func sameReplica(_ id: ReplicaID, _ path: String) -> ConcordError {
        ConcordError(
            .sameReplica,
            "cannot sync replica \(id) (\(path)) with itself: both sides hold the same replica id (the same directory, or a copied store directory; give a copy a fresh identity by creating a new store and syncing into it)",
            peer: id.description, path: path)
    }

    /// A batch carrying two entries for one key.
    package static func duplicateKey(suite: String, key: String) -> ConcordError {
        ConcordError(
            .malformed, "the batch holds two entries for key \"\(key)\" of suite \"\(suite)\"; a batch carries one change per key, so nothing was merged",
            suite: suite, key: key)
    }

    /// A record from outside that the gate refused: at `suite`/`key`, seq `seq` of the journal (or hub)
    /// it came from, for `problem`, explained by `reason`.
    package static func refused(suite: String, key: String, seq: UInt64, problem: RecordRefusal, reason: String) -> ConcordError {
        var error = ConcordError(.refusedRecord, "\(SyncBundle.quoted(suite))/\(SyncBundle.quoted(key)) (seq \(seq)): \(reason)", suite: suite, key: key)
        error.seq = seq
        error.refusal = problem
        return error
    }

    /// A batch holding a record the gate refuses: nothing of it was merged.
    package static func refusedBatch(_ refused: ConcordError) -> ConcordError {
        var error = ConcordError(
            .refusedRecord, "the batch holds a record this replica refuses, so nothing of it was merged: \(refused.message)", suite: refused.suite,
            key: refused.key)
        error.seq = refused.seq
        error.refusal = refused.refusal
        return error
    }

    /// A replica that reads back whole, which `rebuild` refuses.
    package static func nothingToRecover(path: String) -> ConcordError {
        ConcordError(
            .nothingToRecover,
            "\(path) reads back whole (every page, record and journal entry, and they agree): there is nothing to recover, and nothing was changed (rebuilding it anyway would only retire its replica id)",
            path: path)
    }

    /// A conflict number outside the key's beaten writes.
    package static func noSuchConflict(suite: String, key: String, number: Int, count: Int) -> ConcordError {
        let listed = count == 0 ? "it has no beaten writes in the conflict log" : "its beaten writes are numbered 1 to \(count), newest first"
        return ConcordError(
            .noSuchConflict, "there is no beaten write \(number) of key \"\(key)\" in suite \"\(suite)\": \(listed) (nothing was written)", suite: suite,
            key: key)
    }

    /// A wait for acknowledgement that timed out: `peer` (named `name`, if known; nil for a live
    /// sync's peer it never reached) had not acknowledged `pending` changes.
    package static func notAcknowledged(peer: ReplicaID?, name: String?, pending: Int, waited: Duration) -> ConcordError {
        let who = peer.map { id in name.map { "\(id) (\($0))" } ?? "\(id)" } ?? "of the live sync (never reached)"
        var error = ConcordError(
            .notAcknowledged,
            "peer \(who) did not acknowledge this replica's changes within \(waited): \(pending) change\(pending == 1 ? " is" : "s are") still unacknowledged (it is not syncing, or not live; the changes stay and go out at its next sync)",
            peer: peer?.description)
        error.parts = [name ?? "", String(pending)]
        return error
    }

    /// A `.notAcknowledged` error saying it waited `duration` (a wait made of several shorter ones).
    package func waited(_ duration: Duration) -> ConcordError {
        guard code == .notAcknowledged, let parts, parts.count == 2, let pending = Int(parts[1]) else { return self }
        return .notAcknowledged(peer: peer.flatMap(ReplicaID.init(hex:)), name: parts[0].isEmpty ? nil : parts[0], pending: pending, waited: duration)
    }

    /// A bundle refused (or not written, `.unwritable`) for `reason`; nothing was imported or exported.
    package static func bundle(_ code: Code, _ reason: String, path: String? = nil) -> ConcordError {
        ConcordError(
            code, (path.map { "bundle \($0): " } ?? "bundle: ") + reason + (code == .unwritable ? " (nothing was exported)" : " (nothing was imported)"),
            path: path)
    }

    /// A bundle error naming the file it came from.
    package func inBundle(at path: String) -> ConcordError {
        guard self.path == nil, message.hasPrefix("bundle: ") else { return self }
        var out = ConcordError(code, "bundle \(path): " + message.dropFirst("bundle: ".count), suite: suite, key: key, peer: peer, path: path)
        out.seq = seq
        out.refusal = refusal
        return out
    }

    /// A sync session that failed for `message` (a session checks every frame whole before it merges
    /// anything from it, so a refused frame's batch is never merged).
    package static func session(_ code: Code, _ message: String) -> ConcordError {
        ConcordError(code, message)
    }
}

extension [ConcordError] {
    /// Up to `limit` refused records on one line: `"3 rows refused: a/b (seq 1): …; …"` (`noun` names
    /// what was refused, `verb` what happened to it).
    package func line(noun: String, verb: String = "refused", limit: Int = 10) -> String {
        let shown = prefix(limit).map(\.message).joined(separator: "; ")
        let more = count > limit ? "; and \(count - limit) more" : ""
        return "\(count) \(noun)\(count == 1 ? "" : "s") \(verb): \(shown)\(more)"
    }
}
