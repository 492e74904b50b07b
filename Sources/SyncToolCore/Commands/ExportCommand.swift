import Concord
import Foundation

/// `sync-tool export DIR --out FILE [--since-peer DIR_OR_REPLICA_ID | --all] [--suite SUITE]...`
struct ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export", abstract: "Write a replica's changes to a bundle file (for syncing through any file transport).",
        positionals: [.init(name: "DIR", help: "The replica directory.")],
        options: [
            .init(name: "out", valueName: "FILE", help: "The bundle file to write (replaced whole)."),
            .init(
                name: "since-peer", valueName: "DIR_OR_REPLICA_ID",
                help: "Only what that peer has not merged: its replica directory, or its id (then this replica's cursors tell)."),
            .init(name: "suite", valueName: "SUITE", help: "Only this suite (repeat for more; default: every suite).", repeating: true),
            ProgressStyle.option
        ],
        flags: [.init(name: "all", help: "Every change in the journal (the default when --since-peer is not given).")],
        discussion: """
            Shape: sync-tool export DIR --out FILE [--since-peer DIR_OR_REPLICA_ID | --all] [--suite SUITE]...
            Import the file on the other side with 'sync-tool import DIR FILE'. With --progress, the journal's seqs \
            read (phase read), then the records written to the bundle of all it holds (phase export).
            """)

    let dir: String
    let out: String
    let sincePeer: String?
    let selection: SyncSelection
    let progress: ProgressStyle

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        guard let out = a.option("out") else { throw CLIError.usage("missing --out FILE (usage: \(Self.spec.usage))") }
        self.out = out
        sincePeer = a.option("since-peer")
        if sincePeer != nil && a.flag("all") { throw CLIError.usage("give either --since-peer or --all, not both") }
        selection = try SyncCommandSupport.selection(a.values("suite"))
        progress = try ProgressStyle.parse(a)
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        do {
            let store = try Arguments.openStore(dir)
            let start: ExportStart
            if let sincePeer {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: sincePeer, isDirectory: &isDirectory), isDirectory.boolValue {
                    start = .receivedBy(try Arguments.openStore(sincePeer))
                } else if let id = ReplicaID(hex: sincePeer) {
                    start = .acknowledgedBy(id)
                } else {
                    throw CLIError.invalid("--since-peer must be a replica directory or a 32-hex-digit replica id, not '\(printable(sincePeer))'")
                }
            } else {
                start = .beginning
            }
            let display = ProgressDisplay(progress, io: io)
            defer { display.close() }
            let report = try BundleExchange.export(from: store, since: start, selection: selection, to: out, onProgress: display.handler)
            let resync = SyncCommandSupport.Resync(report.historyResync, entries: report.entries, action: "exporting everything") {
                $0 == store.replicaID ? "this replica" : "the peer"
            }
            if let line = resync.line { io.out(line) }
            io.out(
                "exported \(report.entries) changes (seq \(report.fromSeq)...\(report.toSeq)) of \(store.directory) (\(store.replicaID)) to \(out), \(report.bytes) bytes"
            )
            if !report.leftOut.isEmpty {
                io.out(report.leftOut.line(noun: "change", verb: "left out") + " (stored here before the rules they break)")
            }
            return .ok
        }
    }
}
