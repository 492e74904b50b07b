import Concord
import Foundation

/// `sync-tool stat DIR [--top N] [--json | --prometheus]`
struct StatCommand: Command {
    static let spec = CommandSpec(
        name: "stat",
        abstract: "Show what a replica takes: map size and use, free pages, reader slots, the largest suites, its peers (or as Prometheus metrics).",
        positionals: [.init(name: "DIR", help: "The replica directory.")],
        options: [.init(name: "top", valueName: "N", help: "List the N largest suites (default 10).")],
        flags: [
            .init(name: "json", help: "Print one JSON object with every figure."),
            .init(name: "prometheus", help: "Print the figures in Prometheus's text format (concord_ metrics; per peer labelled peer=\"ID\").")
        ],
        discussion: """
            map: the memory map's size (it doubles when full, up to its maximum), the pages in use of it and the \
            data file's size. Free pages are pages on LMDB's free list: later writes reuse them before the file \
            grows. Reader slots: one per reading thread of every process; a slot still held by a dead process \
            ("stale") pins old pages until it is freed, which opening the replica does. Suites are sized by the \
            bytes of their keys and values as stored; the records tree's depth is the pages a lookup reads.

            Per peer: the changes of this replica it has not merged (what a sync would send it now), when a \
            cursor on it last moved (a sync or import), and the conflicts found while merging it.

            --prometheus prints the same figures in Prometheus's text exposition format, each with its HELP and \
            TYPE lines and a replica="ID" label: concord_records, concord_tombstones, concord_journal_entries, \
            concord_conflicts, concord_map_size_bytes, concord_map_used_bytes, concord_map_free_bytes, \
            concord_readers and more, and per peer (label peer="ID") concord_peer_pending_changes, \
            concord_peer_last_sync_timestamp_seconds (unix seconds) and concord_peer_conflicts. For \
            node_exporter's textfile collector, 'sync-tool sync DIR PEER --watch --metrics-file FILE.prom' keeps a \
            file of them current.
            """)

    let dir: String
    let top: Int
    let json: Bool
    let prometheus: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        json = a.flag("json")
        prometheus = a.flag("prometheus")
        if json && prometheus { throw CLIError.usage("give either --json or --prometheus, not both") }
        if let text = a.option("top") {
            guard let n = Int(text), n >= 0 else { throw CLIError.invalid("--top must be a whole number of suites, not '\(printable(text))'") }
            top = n
        } else {
            top = 10
        }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let figures = try ReplicaFigures(try Arguments.openStore(dir), largestSuites: top)
        let s = figures.statistics
        if json {
            io.out(Self.json(figures))
            return .ok
        }
        if prometheus {
            io.out(String(figures.prometheus.dropLast()))
            return .ok
        }
        let m = s.map
        io.out("replica \(s.replicaID) at \(s.directory)")
        io.out("map: \(Self.bytes(m.mapBytes)) (\(m.mapPages) pages of \(m.pageSize) bytes), grows by doubling up to \(Self.bytes(m.maxMapBytes))")
        io.out(
            "used: \(m.pagesUsed) pages = \(Self.bytes(m.usedBytes)) (\(Self.percent(m.pagesUsed, of: m.mapPages)) of the map), \(m.freePages) of them free for reuse"
        )
        io.out("files: data.mdb \(Self.bytes(m.fileBytes)), lock.mdb \(Self.bytes(m.lockFileBytes))")
        let r = s.readers
        io.out(
            "readers: \(r.inUse) of \(r.max) slots in use, \(r.reading) reading now, \(r.stale) stale; \(r.staleFreedAtOpen) stale freed when this command opened the replica"
        )
        for slot in r.slots {
            io.out(
                "  pid \(slot.processID): \(slot.transactionID.map { "reading snapshot \($0)" } ?? "idle")\(slot.processIsAlive ? "" : " (process gone: stale)")"
            )
        }
        io.out(
            "records: \(s.records) in \(s.suites) suites (\(s.tombstones) tombstones); journal entries: \(s.journalEntries) (\(s.supersededJournalEntries) superseded, awaiting removal); records tree depth: \(s.recordsDepth)"
        )
        if !s.largestSuites.isEmpty {
            io.out("largest suites:")
            for u in s.largestSuites { io.out("  \(u.name): \(u.records) records (\(u.tombstones) tombstones), \(Self.bytes(u.bytes))") }
        }
        io.out("databases:")
        for d in s.databases { io.out("  \(d.name): \(d.entries) entries, depth \(d.depth), \(d.pages) pages") }
        io.out("conflicts: \(figures.conflicts) in the log")
        if !figures.peers.isEmpty { io.out("peers:") }
        for p in figures.peers {
            let synced = p.lastSyncMilliseconds.map { "last synced \(GcCommand.date($0))" } ?? "never synced"
            io.out("  \(p.peer): \(p.pendingChanges) changes it has not merged, \(synced), \(p.conflicts) conflicts")
        }
        return .ok
    }

    static func json(_ figures: ReplicaFigures) -> String {
        let s = figures.statistics
        let m = s.map
        let r = s.readers
        func object(_ fields: [(String, Int)]) -> String { ValueText.object(fields.map { ($0.0, String($0.1)) }) }
        let slots = r.slots.map { slot in
            ValueText.object([("pid", String(slot.processID)), ("txn", slot.transactionID.map(String.init) ?? "null"), ("alive", String(slot.processIsAlive))])
        }
        let suites = s.largestSuites.map { u in
            ValueText.object([
                ("name", ValueText.json(u.name)), ("records", String(u.records)), ("tombstones", String(u.tombstones)), ("bytes", String(u.bytes))
            ])
        }
        let databases = s.databases.map { d in
            ValueText.object([("name", ValueText.json(d.name)), ("entries", String(d.entries)), ("depth", String(d.depth)), ("pages", String(d.pages))])
        }
        let peers = figures.peers.map { p in
            ValueText.object([
                ("peer", ValueText.json(p.peer.description)), ("pending_changes", String(p.pendingChanges)),
                ("last_sync", p.lastSyncMilliseconds.map { String(format: "%.3f", Double($0) / 1000) } ?? "null"),
                ("conflicts", String(p.conflicts))
            ])
        }
        return ValueText.object([
            ("directory", ValueText.json(s.directory)), ("replica", ValueText.json(s.replicaID.description)),
            (
                "map",
                object([
                    ("map_bytes", m.mapBytes), ("max_map_bytes", m.maxMapBytes), ("page_size", m.pageSize), ("map_pages", m.mapPages),
                    ("pages_used", m.pagesUsed), ("used_bytes", m.usedBytes), ("free_pages", m.freePages),
                    ("file_bytes", m.fileBytes), ("lock_file_bytes", m.lockFileBytes)
                ])
            ),
            (
                "readers",
                ValueText.object([
                    ("in_use", String(r.inUse)), ("reading", String(r.reading)), ("max", String(r.max)),
                    ("stale", String(r.stale)), ("stale_freed_at_open", String(r.staleFreedAtOpen)),
                    ("slots", "[" + slots.joined(separator: ",") + "]")
                ])
            ),
            ("suites", String(s.suites)), ("records", String(s.records)), ("tombstones", String(s.tombstones)),
            ("journal_entries", String(s.journalEntries)), ("superseded_journal_entries", String(s.supersededJournalEntries)),
            ("records_depth", String(s.recordsDepth)),
            ("largest_suites", "[" + suites.joined(separator: ",") + "]"),
            ("databases", "[" + databases.joined(separator: ",") + "]"),
            ("conflicts", String(figures.conflicts)), ("peers", "[" + peers.joined(separator: ",") + "]")
        ])
    }

    static func bytes(_ n: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(n) bytes" : String(format: "%.1f", value) + " " + units[unit]
    }

    static func percent(_ part: Int, of whole: Int) -> String {
        whole == 0 ? "0%" : String(format: "%.1f%%", Double(part) * 100 / Double(whole))
    }
}
