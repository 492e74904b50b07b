import Concord
import Foundation

/// `sync-tool gc DIR [--retention DAYS] [--json]`
struct GcCommand: Command {
    static let spec = CommandSpec(
        name: "gc", abstract: "Collect tombstones every known peer has merged and that are older than the retention.",
        positionals: [.init(name: "DIR", help: "The replica directory.")],
        options: [.init(name: "retention", valueName: "DAYS", help: "Keep tombstones deleted less than DAYS ago (default 30; 0 to 36500, fractions allowed).")],
        flags: [.init(name: "json", help: "Print one JSON object: counts, every removed key, the peers holding tombstones back.")],
        discussion: """
            A tombstone (what a delete or reset leaves so the delete syncs) goes only once the retention has passed \
            since the delete AND every peer this replica has synced with has merged it; never earlier, or a peer \
            could bring the key back. Prints every key removed, how many were kept for the retention (and when the \
            next becomes old enough), and how many each peer holds back. A peer that will never sync again holds \
            its tombstones until it is forgotten (Store.forgetPeer).
            """)

    static let maxRetentionDays = 36_500.0

    let dir: String
    let retentionDays: Double
    let json: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        json = a.flag("json")
        if let text = a.option("retention") {
            guard let days = Double(text), days.isFinite, days >= 0, days <= Self.maxRetentionDays else {
                throw CLIError.invalid("--retention must be a number of days from 0 to \(Int(Self.maxRetentionDays)), not '\(printable(text))'")
            }
            retentionDays = days
        } else {
            retentionDays = Store.defaultTombstoneRetention.inSeconds / 86_400
        }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let store = try Arguments.openStore(dir)
        let report = try store.collectTombstones(retention: .milliseconds((retentionDays * 86_400_000).rounded()))
        let lastSynced = Dictionary(try store.peerCursors().cursors.map { ($0.peer, $0.updatedMilliseconds) }, uniquingKeysWith: max)
        let peers = report.heldBackByPeer.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        if json {
            let removed = report.removed.map { t in
                ValueText.object([
                    ("suite", ValueText.json(t.suite)), ("key", ValueText.json(t.key)), ("deleted", ValueText.json(Self.date(t.deletedMilliseconds)))
                ])
            }
            let holding = peers.map { peer, count in
                ValueText.object([
                    ("peer", ValueText.json(peer.description)), ("tombstones", String(count)),
                    ("last_synced", lastSynced[peer].map { ValueText.json(Self.date($0)) } ?? "null")
                ])
            }
            io.out(
                ValueText.object([
                    ("retention_days", Self.days(retentionDays)), ("tombstones", String(report.tombstones)),
                    ("collected", String(report.collected)), ("kept_for_retention", String(report.keptForRetention)),
                    ("kept_for_peers", String(report.keptForPeers)),
                    ("next_collectable", report.nextCollectableMilliseconds.map { ValueText.json(Self.date($0)) } ?? "null"),
                    ("removed", "[" + removed.joined(separator: ",") + "]"),
                    ("peers_holding_back", "[" + holding.joined(separator: ",") + "]")
                ]))
            return .ok
        }
        io.out("collected \(report.collected) of \(report.tombstones) tombstones (retention \(Self.days(retentionDays)) days)")
        for t in report.removed { io.out("  removed \(t.suite)/\(printable(t.key)) (deleted \(Self.date(t.deletedMilliseconds)))") }
        if report.keptForRetention > 0 {
            let next = report.nextCollectableMilliseconds.map { "; the first becomes old enough at \(Self.date($0))" } ?? ""
            io.out("kept \(report.keptForRetention) deleted less than \(Self.days(retentionDays)) days ago\(next)")
        }
        if report.keptForPeers > 0 {
            io.out("kept \(report.keptForPeers) that peers have not merged yet:")
            for (peer, count) in peers {
                let synced = lastSynced[peer].map { "last synced \(Self.date($0))" } ?? "never synced"
                io.out("  peer \(peer) has not merged \(count) (\(synced)); sync with it, or forget it if it is gone for good")
            }
        }
        return .ok
    }

    static func date(_ milliseconds: UInt64) -> String {
        JSONValue.formatDate(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    static func days(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
}
