/// Builds text in the Prometheus exposition format (version 0.0.4): each metric family once, with its
/// `# HELP` and `# TYPE` lines before its samples, label values and help text escaped.
struct PrometheusText {
    private(set) var text = ""

    /// One metric family: `name` (with its unit in it), its help, its type and its samples.
    mutating func family(_ name: String, _ help: String, type: String = "gauge", _ samples: [(labels: [(String, String)], value: Double)]) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
        for sample in samples {
            let labels = sample.labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",")
            text += name + (labels.isEmpty ? "" : "{\(labels)}") + " " + Self.number(sample.value) + "\n"
        }
    }

    /// A family of one sample.
    mutating func family(_ name: String, _ help: String, type: String = "gauge", labels: [(String, String)] = [], _ value: Double) {
        family(name, help, type: type, [(labels, value)])
    }

    /// A label value: backslash, double quote and line feed escaped (`\\`, `\"`, `\n`).
    static func escapeLabel(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Help text: backslash and line feed escaped.
    static func escapeHelp(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A whole number without a fraction, anything else as Swift prints a Double.
    static func number(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}

extension ReplicaFigures {
    /// The figures as Prometheus metrics, `concord_` first, each labelled with the replica's id.
    var prometheus: String {
        let s = statistics
        let m = s.map
        let r = s.readers
        let replica = [("replica", s.replicaID.description)]
        var p = PrometheusText()
        p.family(
            "concord_replica_info", "The replica: its id and directory (always 1).",
            labels: replica + [("directory", s.directory)], 1)
        p.family("concord_suites", "Suites holding records.", labels: replica, Double(s.suites))
        p.family("concord_records", "Records stored, tombstones included.", labels: replica, Double(s.records))
        p.family("concord_tombstones", "Tombstones: deleted keys kept so the delete syncs.", labels: replica, Double(s.tombstones))
        p.family("concord_journal_entries", "Live entries in the journal (one per record, its newest change).", labels: replica, Double(s.journalEntries))
        p.family(
            "concord_journal_superseded_entries", "Journal entries a later change superseded, awaiting removal in bulk.", labels: replica,
            Double(s.supersededJournalEntries))
        p.family("concord_conflicts", "Entries in the conflict log (concurrent writes whose losing value is kept).", labels: replica, Double(conflicts))
        p.family(
            "concord_map_size_bytes", "The memory map's size; it doubles when full, up to concord_map_max_size_bytes.", labels: replica, Double(m.mapBytes))
        p.family("concord_map_max_size_bytes", "The largest the memory map may grow to.", labels: replica, Double(m.maxMapBytes))
        p.family("concord_map_used_bytes", "Bytes of the pages in use in the data file, free ones included.", labels: replica, Double(m.usedBytes))
        p.family("concord_map_free_bytes", "Bytes of the pages on the free list, reused by later writes.", labels: replica, Double(m.freePages * m.pageSize))
        p.family("concord_data_file_bytes", "The size of data.mdb.", labels: replica, Double(m.fileBytes))
        p.family("concord_readers", "Reader slots in use (one per reading thread of every process).", labels: replica, Double(r.inUse))
        p.family("concord_readers_max", "Reader slots there are.", labels: replica, Double(r.max))
        p.family("concord_readers_stale", "Reader slots held by processes that are gone.", labels: replica, Double(r.stale))
        let peer = { (f: PeerFigures) in replica + [("peer", f.peer.description)] }
        p.family(
            "concord_peer_pending_changes", "This replica's changes the peer has not merged (what a sync would send it).",
            peers.map { (peer($0), Double($0.pendingChanges)) })
        p.family(
            "concord_peer_last_sync_timestamp_seconds", "When this replica's cursor on the peer last moved, as unix seconds.",
            peers.compactMap { f in f.lastSyncMilliseconds.map { (peer(f), Double($0) / 1000) } })
        p.family("concord_peer_conflicts", "Conflict log entries found while merging the peer.", peers.map { (peer($0), Double($0.conflicts)) })
        return p.text
    }
}
