import Concord
import Foundation

/// `sync-tool backup DIR DEST [--compact] [--json]`
struct BackupCommand: Command {
    static let spec = CommandSpec(
        name: "backup", abstract: "Copy a replica into a new directory while other processes keep writing; the copy is checked.",
        positionals: [
            .init(name: "DIR", help: "The replica directory."),
            .init(name: "DEST", help: "The backup's directory: new, or empty (made 0700; its files 0600).")
        ],
        options: [ProgressStyle.option],
        flags: [
            .init(name: "compact", help: "Leave free pages out of the copy: a smaller file, for more CPU."),
            .init(name: "json", help: "Print one JSON object: directory, replica, bytes, records, journal entries, last seq.")
        ],
        discussion: """
            The copy is one consistent snapshot: every change committed before it began, none after, each record \
            with its journal entry. Writers are not stopped (LMDB's hot copy holds their lock only while it reads \
            the meta page). The copy is opened and checked like 'sync-tool check' before the command succeeds; on \
            any failure nothing is left in DEST. DEST must not exist or be empty: anything else is refused (exit 3) \
            and nothing is written. With --progress, the bytes of the copy written, of the pages in use (less the \
            free ones with --compact) as the copy began; the last update gives the copy's size.

            The backup has the same replica id as DIR: the same identity. Restore it in place of DIR (stop its \
            processes, move DIR away, move DEST to DIR): the first sync with a peer that merged DIR past the \
            backup notices, says so, and resends everything both ways, so what the peers hold comes back. Never \
            keep it beside DIR as a second replica that syncs with it, or two different writes can get the same version.
            """)

    let dir, destination: String
    let compact, json: Bool
    let progress: ProgressStyle

    init(_ a: ParsedArguments) throws {
        (dir, destination) = (a.positionals[0], a.positionals[1])
        compact = a.flag("compact")
        json = a.flag("json")
        progress = try ProgressStyle.parse(a)
        if let refusal = BackupDestination.refusal(destination) { throw CLIError.invalid("\(printable(destination)): \(refusal)") }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let store = try Arguments.openStore(dir)
        let display = ProgressDisplay(progress, io: io)
        defer { display.close() }
        let report = try store.backup(to: destination, compact: compact, onProgress: display.handler)
        if json {
            io.out(
                ValueText.object([
                    ("directory", ValueText.json(report.directory)), ("source", ValueText.json(store.directory)),
                    ("replica", ValueText.json(report.replicaID.description)), ("compacted", String(compact)),
                    ("bytes", String(report.fileBytes)), ("records", String(report.records)),
                    ("journal_entries", String(report.journalEntries)), ("last_seq", String(report.lastSeq))
                ]))
        } else {
            io.out("backed up \(store.directory) to \(report.directory)\(compact ? " (compacted)" : "")")
            io.out(
                "\(report.records) records, \(report.journalEntries) journal entries, every change up to seq \(report.lastSeq); \(report.fileBytes) bytes; checked: sound"
            )
            io.out("replica \(report.replicaID): the same identity as the original; restore it in place of it, never beside it")
        }
        return .ok
    }
}
