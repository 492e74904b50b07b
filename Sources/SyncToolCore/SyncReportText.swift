import Concord

/// How `sync` prints a `SyncReport`, whichever transport made it (two directories, a remote, two
/// remotes relayed, a hub, a live round): the lines of the text output, and the fields of `--json`.
/// A and B are the replicas as the command was given them.
struct SyncReportText {
    /// What B is (A is a directory, or with two remotes relayed, a remote too).
    enum Peer: Equatable {
        case directory
        /// A replica over ssh; the session's far side counted its own conflicts.
        case remote(String)
        /// Two remotes relayed through this process: both merges ran far away.
        case relay(a: String, b: String)
        /// A hub account: A's direction is the push, B's the pull in pages.
        case hub
    }

    let report: SyncReport
    let peer: Peer

    /// `report` with A and B as the command names them: `swapped` when the report's A is the
    /// command's B (a remote given first, or the local directory second in a live sync).
    init(_ report: SyncReport, peer: Peer, swapped: Bool = false) {
        self.report = swapped ? report.swapped : report
        self.peer = peer
    }

    private var verb: String { report.dryRun ? "would change" : "changed" }

    /// How the resync line and the JSON name a replica: the side it is ("A", "B", "B (the hub)").
    var resync: SyncCommandSupport.Resync {
        let a = report.aToB.source
        return SyncCommandSupport.Resync(
            report.historyResync, entries: report.newEntries, dryRun: report.dryRun, side: { $0 == a ? "A" : "B" }
        ) { $0 == a ? "A" : (peer == .hub ? "B (the hub)" : "B") }
    }

    /// The lines after the command's title: the resync, what went each way, the conflicts, then what
    /// the counts do not say (records left out or refused, a full resync, clock skew).
    var lines: [String] {
        var out = resync.line.map { [$0] } ?? []
        let (ab, ba) = (report.aToB, report.bToA)
        out.append("A -> B: \(ab.newEntries) changes sent, \(ab.recordsChanged) records \(verb) in B")
        let pages = peer == .hub ? " in \(ba.batches) pages" : ""
        out.append("B -> A: \(ba.newEntries) changes sent\(pages), \(ba.recordsChanged) records \(verb) in A")
        let far = ab.remoteConflicts + ba.remoteConflicts
        let farSide = if case .relay = peer { "the remote sides: see their conflict logs" } else { "the remote side: see its conflict log" }
        out.append("conflicts: \(report.conflictCount)" + (far > 0 ? " (\(far) found on \(farSide))" : ""))
        for c in report.conflicts { out.append("  " + SyncCommandSupport.conflictLine(c)) }
        return out + notes
    }

    /// What a sync's counts do not say: records left out or refused, a full resync, clock skew.
    var notes: [String] {
        var out: [String] = []
        for (direction, from, into) in [(report.aToB, "A", "B"), (report.bToA, "B", "A")] {
            if !direction.refused.isEmpty {
                let line: String =
                    switch (peer, from) {
                    case (.hub, "A"): direction.refused.line(noun: "change", verb: "left out of the push") + " (stored here before the rules they break)"
                    case (.hub, _): direction.refused.line(noun: "row") + " (the hub's other rows merged)"
                    default: "\(from): " + direction.refused.line(noun: "change", verb: "left out") + " (stored there before the rules they break)"
                    }
                out.append(line)
            }
            if direction.horizonResync {
                out.append(
                    "full resync: \(into) was behind \(from)'s tombstone horizon (deleted keys \(from) no longer lists were deleted in \(into))")
            }
            if direction.skewedVersions > 0 {
                out.append(
                    "clock skew warning: \(direction.skewedVersions) versions from \(from) were up to \(direction.maxSkewMilliseconds / 1000) s ahead of \(into)'s clock (merged anyway; check \(from)'s system clock)"
                )
            }
        }
        return out
    }

    /// The last line: where the sync left the replicas.
    var status: String { report.isInSync ? "in sync" : (report.dryRun ? "changes pending" : "synced") }

    /// The `--json` fields: the counts of every sync, then what the peer adds (the remotes' addresses,
    /// a hub's figures), then the resync.
    var fields: [(String, String)] {
        let (ab, ba) = (report.aToB, report.bToA)
        let left = (a: ab.refused.count, b: ba.refused.count)
        var out: [(String, String)] = [
            ("dry_run", String(report.dryRun)), ("in_sync", String(report.isInSync)),
            ("sent_a_to_b", String(ab.newEntries)), ("sent_b_to_a", String(ba.newEntries)),
            ("records_changed_a", String(ba.recordsChanged)), ("records_changed_b", String(ab.recordsChanged)),
            ("records_changed", String(report.recordsChanged))
        ]
        out += [
            ("conflicts", String(report.conflictCount)), ("clock_skew_warnings", String(report.skewedVersions)),
            ("left_out_a", String(left.a)), ("left_out_b", String(left.b)), ("left_out", String(left.a + left.b))
        ]
        out += [
            ("batches_a_to_b", String(ab.batches)), ("batches_b_to_a", String(ba.batches)), ("batches_sent", String(ab.batches + ba.batches)),
            ("journal_entries_read", String(report.journalEntriesRead))
        ]
        switch peer {
        case .directory: break
        case .remote(let remote): out.append(("remote", ValueText.json(remote)))
        case .relay(let a, let b): out += [("remote_a", ValueText.json(a)), ("remote_b", ValueText.json(b))]
        case .hub:
            out += [
                ("hub_rows_changed", String(ab.recordsChanged)), ("pages", String(ba.batches)), ("resync", String(ba.horizonResync)),
                ("rows_refused", String(ba.refused.count)), ("changes_left_out", String(ab.refused.count))
            ]
        }
        return out + resync.jsonFields
    }

    /// One JSON object: `leading` fields (a live round's number, a hub's push and pull), then `fields`.
    func json(_ leading: [(String, String)] = []) -> String { ValueText.object(leading + fields) }
}

extension SyncReport {
    /// The same sync with A and B exchanged.
    var swapped: SyncReport {
        var out = SyncReport(aToB: bToA, bToA: aToB, dryRun: dryRun)
        out.historyResync = historyResync
        return out
    }
}
