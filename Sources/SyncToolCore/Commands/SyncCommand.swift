import Concord
import ConcordHub

/// `sync-tool sync DIR_A DIR_B|postgresql://… [--suite SUITE]... [--dry-run] [--json] [--watch]`
struct SyncCommand: Command {
    static let spec = CommandSpec(
        name: "sync", abstract: "Sync two replicas both ways, or a replica with its account on a hub (postgresql://…).",
        positionals: [.init(name: "DIR_A", help: "One replica directory."),
                      .init(name: "DIR_B", help: "The other replica directory, or a hub's libpq URI (postgresql://USER@HOST/DB).")],
        options: [.init(name: "suite", valueName: "SUITE", help: "Sync only this suite (repeat for more; default: every suite).", repeating: true)],
        flags: [.init(name: "dry-run", help: "Compute and print the plan, write nothing; exit 0 when in sync, 10 when changes are pending."),
                .init(name: "json", help: "Print one JSON object with the counts."),
                .init(name: "watch", help: "With a hub: stay connected and sync live (after each local commit and each push announced by the hub).")],
        discussion: """
        Prints the changes sent each way, the records changed, the conflicts (concurrent writes: the \
        losing value is kept in each replica's conflict log, see 'sync-tool conflicts') and clock-skew \
        warnings. Safe to run while other processes write, and alongside other syncs of the same replicas.

        With a hub URL, the account is the role the URL logs in as; the password comes from the URL, \
        ~/.pgpass or PGPASSWORD (never printed). Exit 5 when the hub cannot be reached or refuses the login.
        """)

    let dirA, dirB: String
    let selection: SyncSelection
    let dryRun, json, watch: Bool

    init(_ a: ParsedArguments) throws {
        (dirA, dirB) = (a.positionals[0], a.positionals[1])
        selection = try SyncCommandSupport.selection(a.values("suite"))
        dryRun = a.flag("dry-run")
        json = a.flag("json")
        watch = a.flag("watch")
        if watch && !ConnectionString.isHubURL(dirB) { throw CLIError.usage("--watch needs a hub URL (postgresql://…) as the second argument") }
        if watch && dryRun { throw CLIError.usage("--watch and --dry-run do not go together") }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        if ConnectionString.isHubURL(dirB) {
            return try HubSyncCommand(directory: dirA, url: dirB, selection: selection, dryRun: dryRun, json: json, watch: watch).run(io)
        }
        return try SyncCommandSupport.mappingErrors {
            let a = try Arguments.openStore(dirA), b = try Arguments.openStore(dirB)
            let report = try Synchronizer(selection: selection).sync(a, b, dryRun: dryRun)
            let sentAB = report.aToB.entries - report.aToB.alreadyMerged
            let sentBA = report.bToA.entries - report.bToA.alreadyMerged
            let conflicts = report.conflicts
            if json {
                io.out(ValueText.object([
                    ("dry_run", String(dryRun)), ("in_sync", String(report.isInSync)),
                    ("sent_a_to_b", String(sentAB)), ("sent_b_to_a", String(sentBA)),
                    ("records_changed_a", String(report.bToA.recordsChanged)), ("records_changed_b", String(report.aToB.recordsChanged)),
                    ("records_changed", String(report.recordsChanged)),
                    ("conflicts", String(conflicts.count)),
                    ("clock_skew_warnings", String(report.skewedVersions)),
                    ("journal_entries_read", String(report.journalEntriesRead)),
                ]))
            } else {
                let verb = dryRun ? "would change" : "changed"
                io.out("\(dryRun ? "dry run: " : "")sync \(a.directory) (\(a.replicaID)) <-> \(b.directory) (\(b.replicaID)), \(selection)")
                io.out("A -> B: \(sentAB) changes sent, \(report.aToB.recordsChanged) records \(verb) in B")
                io.out("B -> A: \(sentBA) changes sent, \(report.bToA.recordsChanged) records \(verb) in A")
                io.out("conflicts: \(conflicts.count)")
                for c in conflicts { io.out("  " + SyncCommandSupport.conflictLine(c)) }
                for (report, from, into) in [(report.aToB, "A", "B"), (report.bToA, "B", "A")] where report.skewedVersions > 0 {
                    io.out("clock skew warning: \(report.skewedVersions) versions from \(from) were up to \(report.maxSkewMilliseconds / 1000) s ahead of \(into)'s clock (merged anyway; check \(from)'s system clock)")
                }
                io.out(report.isInSync ? "in sync" : (dryRun ? "changes pending" : "synced"))
            }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }
}

/// What the sync commands share: parsing suites, turning sync and bundle errors into exit codes, printing conflicts.
enum SyncCommandSupport {
    static func selection(_ suites: [String]) throws -> SyncSelection {
        do { return try SyncSelection(suites: suites) } catch let error as StoreError {
            throw CLIError.invalid(error.description)
        }
    }

    /// Runs `body`, reporting a bad bundle or an impossible sync as invalid input (exit 3).
    static func mappingErrors(_ body: () throws -> ExitCode) throws -> ExitCode {
        do { return try body() } catch let error as BundleError {
            throw CLIError(.invalidInput, error.description)
        } catch let error as SyncError {
            throw CLIError(.invalidInput, error.description)
        }
    }

    static func source(_ source: ChangeSource) -> String {
        switch source {
        case .process(let token): "process \(token.prefix(4).map { String($0, radix: 16).leftPadded(2) }.joined())"
        case .sync(let peer): "sync from \(peer)"
        }
    }

    static func shown(_ record: Record) -> String {
        guard let value = try? record.value() else { return record.isTombstone ? "deleted" : "undecodable" }
        return "\(value.typeName) \(printable(ValueText.plain(value)))"
    }

    static func conflictLine(_ c: Conflict) -> String {
        "\(c.suite)/\(printable(c.key)): kept \(shown(c.winner.record)) (\(c.winner.record.version), \(source(c.winner.source))); "
            + "lost \(shown(c.loser.record)) (\(c.loser.record.version), \(source(c.loser.source)))"
    }

    static func side(_ side: ConflictSide) -> String {
        var fields: [(String, String)] = []
        if let value = try? side.record.value() {
            fields += [("type", ValueText.json(value.typeName)), ("value", JSONValue.render(value))]
        } else {
            fields += [("type", ValueText.json("deleted")), ("deleted", "true")]
        }
        fields += [("version", ValueText.json(side.record.version.description)), ("writer", ValueText.json(side.writer.description)),
                   ("origin", ValueText.json(source(side.source)))]
        return ValueText.object(fields)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
