import Concord
import Foundation

/// `sync-tool import DIR FILE [--dry-run] [--json]`
struct ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import", abstract: "Merge a bundle file into a replica (validated whole first; importing twice is harmless).",
        positionals: [.init(name: "DIR", help: "The replica directory (created if missing)."), .init(name: "FILE", help: "The bundle file.")],
        options: [ProgressStyle.option],
        flags: [
            .init(name: "dry-run", help: "Validate and print what would change, write nothing; exit 0 when nothing would, 10 when changes are pending."),
            .init(name: "json", help: "Print one JSON object with the counts.")
        ],
        discussion: """
            A truncated, damaged, foreign, newer-format or oversized bundle is refused with exit code 3 and changes nothing. \
            With --progress, the bundle's records merged of all it holds.
            """)

    let dir, file: String
    let dryRun, json: Bool
    let progress: ProgressStyle

    init(_ a: ParsedArguments) throws {
        (dir, file) = (a.positionals[0], a.positionals[1])
        dryRun = a.flag("dry-run")
        json = a.flag("json")
        progress = try ProgressStyle.parse(a)
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        do {
            let bundle = try BundleExchange.read(at: file) // refuse a bad bundle before touching the store
            let report: ApplyReport
            if dryRun && !FileManager.default.fileExists(atPath: dir) {
                // No replica yet (import would create it): every entry would be new, and nothing is created now.
                var planned = ApplyReport(source: bundle.batch.source, target: .zero)
                planned.entries = bundle.batch.entries.count
                planned.recordsChanged = bundle.batch.entries.count
                report = planned
            } else {
                let store = try Arguments.openStore(dir, create: !dryRun)
                let display = ProgressDisplay(progress, io: io)
                defer { display.close() }
                report = try BundleExchange.importBundle(bundle, from: file, into: store, dryRun: dryRun, onProgress: display.handler)
            }
            let pending = dryRun && report.recordsChanged > 0
            let source = report.source
            let importerRestored = report.historyResync?.restored.contains { $0 != source } == true
            let resync = SyncCommandSupport.Resync(
                report.historyResync, entries: report.entries,
                action: "\(dryRun ? "would merge" : "merged") every entry of the bundle"
                    + (importerRestored ? "; what this replica lost comes back with the source's next export, once it has imported one from here" : ""),
                side: { $0 == source ? "source" : "replica" }
            ) { $0 == source ? "the bundle's source" : "this replica" }
            if json {
                io.out(
                    ValueText.object(
                        [
                            ("dry_run", String(dryRun)), ("source", ValueText.json(report.source.description)),
                            ("from_seq", String(bundle.batch.fromSeq)), ("to_seq", String(bundle.batch.toSeq)),
                            ("entries", String(report.entries)), ("already_merged", String(report.alreadyMerged)),
                            ("records_changed", String(report.recordsChanged)), ("conflicts", String(report.conflicts.count)),
                            ("clock_skew_warnings", String(report.skewedVersions)), ("cursor_advanced", String(report.cursorAdvanced))
                        ] + resync.jsonFields))
            } else {
                io.out(
                    "\(dryRun ? "dry run: " : "")bundle from \(report.source), seq \(bundle.batch.fromSeq)...\(bundle.batch.toSeq): \(report.entries) entries, \(report.alreadyMerged) already merged"
                )
                if let line = resync.line { io.out(line) }
                io.out("records \(dryRun ? "that would change" : "changed"): \(report.recordsChanged)")
                io.out("conflicts: \(report.conflicts.count)")
                for c in report.conflicts { io.out("  " + SyncCommandSupport.conflictLine(c)) }
                if report.skewedVersions > 0 {
                    io.out(
                        "clock skew warning: \(report.skewedVersions) versions were up to \(report.maxSkewMilliseconds / 1000) s ahead of this replica's clock (merged anyway)"
                    )
                }
                if report.olderThanCursor {
                    io.out(
                        "note: this bundle is older than what this replica has merged from \(report.source): every entry was merged, and the cursor stays"
                    )
                } else if !report.cursorAdvanced && report.historyResync == nil {
                    io.out(
                        "note: this bundle starts after what this replica has merged from \(report.source); an earlier bundle is missing, so the same changes will be asked for again"
                    )
                }
            }
            return pending ? .pending : .ok
        }
    }
}
