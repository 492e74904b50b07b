import Concord
import ConcordHub

/// `sync-tool sync A B|postgresql://… [--suite SUITE]... [--rsh CMD] [--remote-command PATH] [--timeout SECONDS] [--create] [--dry-run] [--json] [--watch]`
struct SyncCommand: Command {
    static let spec = CommandSpec(
        name: "sync", abstract: "Sync two replicas both ways (each a directory or [user@]host:PATH over ssh), or a replica with a hub (postgresql://…).",
        positionals: [
            .init(name: "A", help: "One replica: a directory, or [user@]host:PATH / ssh://[user@]host[:port]/PATH."),
            .init(name: "B", help: "The other replica (a directory or a remote), or a hub: postgresql://USER@HOST/DB or 'host=… user=… dbname=…'.")
        ],
        options: [
            .init(name: "suite", valueName: "SUITE", help: "Sync only this suite (repeat for more; default: every suite).", repeating: true),
            .init(name: "rsh", valueName: "CMD", help: "The ssh command and its options for a remote (default \"ssh\"), as rsync's -e."),
            .init(name: "remote-command", valueName: "PATH", help: "The program run on the remote side as 'PATH serve DIR' (default sync-tool)."),
            .init(name: "timeout", valueName: "SECONDS", help: "With a remote: give up when the peer is silent this long mid-exchange (default 60)."),
            .init(name: "heartbeat", valueName: "SECONDS", help: "With --watch: seconds between rounds when nothing happens (default 10)."),
            .init(
                name: "metrics-file", valueName: "FILE",
                help: "With --watch: keep FILE current with the local replica's Prometheus metrics (as stat --prometheus)."),
            ProgressStyle.option
        ],
        flags: [
            .init(name: "dry-run", help: "Compute and print the plan, write nothing; exit 0 when in sync, 10 when changes are pending."),
            .init(name: "json", help: "Print one JSON object with the counts (with --watch: one per round, then a summary)."),
            .init(name: "create", help: "Create a missing replica directory, local or remote (a new replica seeded by this sync)."),
            .init(name: "watch", help: "Stay connected and sync live (after each local commit and each change the peer announces) until SIGINT/SIGTERM.")
        ],
        discussion: """
            Prints the changes sent each way, the records changed, the conflicts (concurrent writes: the \
            losing value is kept in each replica's conflict log, see 'sync-tool conflicts') and clock-skew \
            warnings. Safe to run while other processes write, and alongside other syncs of the same replicas.

            A remote replica is reached by running 'ssh [user@]host sync-tool serve PATH' (see --rsh and \
            --remote-command); the session streams batches both ways, each merged in one transaction and \
            acknowledged, so a dropped connection leaves whole batches merged and the next sync resumes. \
            Exit 5 when the remote cannot be reached, refuses the login or drops the connection. With two \
            remotes, this machine relays: each far side is introduced to the other's replica and the \
            batches and acknowledgements pass through unchanged (nothing is stored here).

            B is a hub when it is a postgresql:// or postgres:// URI, or libpq keyword=value pairs \
            ('host=db port=5432 user=alice dbname=settings': every word a pair with a keyword libpq knows) \
            and no file or directory of that name exists; write ./NAME for a directory whose name looks so. \
            The account is the role the connection logs in as; the password comes from the string, \
            ~/.pgpass or PGPASSWORD (never printed). Exit 5 when the hub cannot be reached, refuses the login \
            or its certificate does not verify, 6 when it refuses a push over the account's quota.

            With --watch (A a directory or a remote, B a directory, a remote or a hub), one line (or JSON \
            object) per round; on SIGINT or SIGTERM a summary, exit 0.

            With --watch --metrics-file FILE (the replica a directory), FILE holds the local replica's figures in \
            Prometheus's text format, as 'sync-tool stat DIR --prometheus' prints them, for node_exporter's textfile \
            collector (name it NAME.prom in the collector's directory): rewritten at most once a second after a \
            round, and at the end of the watch; each write goes to FILE.tmp beside it, is fsynced and renamed over \
            FILE, so the collector never reads half a file.

            With --progress, how far the sync has come, on stderr: one line redrawn on a terminal (nothing when \
            stderr is not one), or with --progress=json one object per update, at most ten a second \
            ({"phase":"sync","done":N,"total":N,"unit":"changes","rate":R,"eta":S}, each phase's last with done == \
            total). Two directories: phase "read" (the seqs of both journals scanned, from each cursor to each last \
            seq), then "sync", the changes both deltas hold, merged. A remote: "send" then "receive", in seqs of \
            the sender's journal from the cursor to its last seq (entries the sender leaves out as echoes count \
            too), batch by batch. A hub: "read" (this replica's journal), "push" (the changes, sent in one \
            transaction), then "pull" (seqs of the account, page by page).
            """)

    let dirA, dirB: String
    let selection: SyncSelection
    let dryRun, json, watch: Bool
    let remote: RemoteOptions
    let heartbeat: Double
    let progress: ProgressStyle
    let metricsFile: String?

    init(_ a: ParsedArguments) throws {
        (dirA, dirB) = (a.positionals[0], a.positionals[1])
        selection = try SyncCommandSupport.selection(a.values("suite"))
        dryRun = a.flag("dry-run")
        json = a.flag("json")
        watch = a.flag("watch")
        var remote = RemoteOptions()
        if let rsh = a.option("rsh") { remote.rsh = rsh }
        if let command = a.option("remote-command") { remote.remoteCommand = command }
        remote.timeout = .seconds(try a.option("timeout").map { try Arguments.seconds($0, name: "--timeout") } ?? 60)
        remote.create = a.flag("create") && !dryRun
        self.remote = remote
        heartbeat = try a.option("heartbeat").map { try Arguments.seconds($0, name: "--heartbeat") } ?? 10
        guard remote.timeout > .zero, heartbeat > 0 else { throw CLIError.invalid("--timeout and --heartbeat must be more than 0 seconds") }
        if watch && dryRun { throw CLIError.usage("--watch and --dry-run do not go together") }
        progress = try ProgressStyle.parse(a)
        metricsFile = a.option("metrics-file")
        if metricsFile != nil && !watch { throw CLIError.usage("--metrics-file keeps a file current during --watch; give --watch too") }
        if metricsFile != nil && RemoteAddress.isRemote(dirA) && RemoteAddress.isRemote(dirB) {
            throw CLIError.usage("--metrics-file needs a local replica directory: with two remotes nothing is stored here")
        }
        if a.option("progress") != nil && (watch || (RemoteAddress.isRemote(dirA) && RemoteAddress.isRemote(dirB))) {
            throw CLIError.usage("--progress is shown for a one-off sync with a local replica (not with --watch, nor two remotes relayed)")
        }
        if RemoteAddress.isRemote(dirA) && HubSyncCommand.isHub(dirB) {
            throw CLIError.usage("a remote replica cannot sync with a hub from here: run 'sync-tool sync DIR \(dirB)' on the remote's machine")
        }
        for side in [dirA, dirB] where RemoteAddress.isRemote(side) && !HubSyncCommand.isHub(side) {
            do { _ = try RemoteAddress.parse(side) } catch { throw CLIError.invalid(error.message) }
        }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        if HubSyncCommand.isHub(dirB) && !watch {
            var command = HubSyncCommand(directory: dirA, url: dirB, selection: selection, dryRun: dryRun, json: json)
            command.progress = progress
            return try command.run(io)
        }
        if watch {
            // The remote may be given either way round; the live loop runs from the local directory.
            let (local, other) = RemoteAddress.isRemote(dirA) ? (dirB, dirA) : (dirA, dirB)
            var live = LiveSyncCommand(local: local, other: other, options: remote, selection: selection, json: json, heartbeat: heartbeat)
            live.localIsA = local == dirA
            live.metricsFile = metricsFile
            return try live.run(io)
        }
        if RemoteAddress.isRemote(dirA) && RemoteAddress.isRemote(dirB) {
            return try RelaySyncCommand(
                a: try RemoteAddress.parse(dirA), b: try RemoteAddress.parse(dirB), options: remote,
                selection: selection, dryRun: dryRun, json: json
            ).run(io)
        }
        for (side, other, isA) in [(dirA, dirB, true), (dirB, dirA, false)] where RemoteAddress.isRemote(side) {
            var command = RemoteSyncCommand(
                local: other, remote: try RemoteAddress.parse(side), remoteIsA: isA, options: remote,
                selection: selection, dryRun: dryRun, json: json)
            command.progress = progress
            return try command.run(io)
        }
        do {
            let a = try Arguments.openStore(dirA, create: remote.create)
            let b = try Arguments.openStore(dirB, create: remote.create)
            let display = ProgressDisplay(progress, io: io)
            defer { display.close() }
            var synchronizer = Synchronizer(selection: selection)
            synchronizer.onProgress = display.handler
            let report = try synchronizer.sync(a, b, dryRun: dryRun)
            let text = SyncReportText(report, peer: .directory)
            if json {
                io.out(text.json())
            } else {
                io.out("\(dryRun ? "dry run: " : "")sync \(a.directory) (\(a.replicaID)) <-> \(b.directory) (\(b.replicaID)), \(selection)")
                for line in text.lines + [text.status] { io.out(line) }
            }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }
}

/// What the sync commands share: parsing suites, turning sync and bundle errors into exit codes, printing conflicts.
enum SyncCommandSupport {
    /// How a sync command says that it resent everything (see `HistoryResync`): one line, and in JSON
    /// `resync` (that line, or null) and `restored` (the sides found restored, as "A" and "B").
    struct Resync {
        let line: String?
        let restored: [String]

        /// `name` gives a replica's name in the command's terms (`side` its side, "A" or "B", for the
        /// JSON; the name by default); `entries` is what the sync sent both ways.
        init(
            _ resync: HistoryResync?, entries: Int, dryRun: Bool = false, action: String? = nil,
            side: ((ReplicaID) -> String)? = nil, name: (ReplicaID) -> String
        ) {
            guard let resync else {
                (line, restored) = (nil, [])
                return
            }
            let once = resync.causes.allSatisfy { $0 == .predatesMarks } ? " once" : ""
            let doing = action ?? "\(dryRun ? "would resend" : "resending") everything both ways\(once)"
            line = "\(resync.summary(naming: name)): \(doing) (\(entries) entries)"
            restored = resync.restored.map { side?($0) ?? name($0) }
        }

        var jsonFields: [(String, String)] {
            [("history_resync", line.map(ValueText.json) ?? "null"), ("restored", "[" + restored.map(ValueText.json).joined(separator: ",") + "]")]
        }
    }

    static func selection(_ suites: [String]) throws -> SyncSelection {
        do { return try SyncSelection(suites: suites) } catch let error as ConcordError {
            throw CLIError.invalid(error.description)
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
        "\(c.suite)/\(printable(c.key)): kept \(shown(c.winner)) (\(c.winner.version), \(source(c.winnerSide.source))); "
            + "lost \(shown(c.loser)) (\(c.loser.version), \(source(c.loserSide.source)))"
    }

    static func side(_ side: ConflictSide) -> String {
        var fields: [(String, String)] = []
        if let value = try? side.record.value() {
            fields += [("type", ValueText.json(value.typeName)), ("value", JSONValue.render(value))]
        } else {
            fields += [("type", ValueText.json("deleted")), ("deleted", "true")]
        }
        fields += [
            ("version", ValueText.json(side.record.version.description)), ("writer", ValueText.json(side.record.version.replica.description)),
            ("origin", ValueText.json(source(side.source)))
        ]
        return ValueText.object(fields)
    }
}
