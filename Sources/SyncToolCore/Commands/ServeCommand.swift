import Concord
import Foundation

/// `sync-tool serve DIR [--read-only] [--suite SUITE]... [--create] [--timeout SECONDS]`
struct ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve", abstract: "Speak the sync protocol on standard input and output (what 'sync' runs over ssh on the far side).",
        positionals: [.init(name: "DIR", help: "The replica directory to serve.")],
        options: [
            .init(name: "suite", valueName: "SUITE", help: "Serve only this suite (repeat for more; default: every suite).", repeating: true),
            .init(name: "timeout", valueName: "SECONDS", help: "Give up when the client sends nothing for this long mid-exchange (default 60).")
        ],
        flags: [
            .init(name: "read-only", help: "Send this replica's changes, merge nothing (a client's batch is refused)."),
            .init(name: "create", help: "Create the replica directory when it is missing (otherwise that is an error).")
        ],
        discussion: """
            Diagnostics go to standard error only; the session ends when the client closes the stream \
            (exit 0). A bad frame (truncated, damaged, over the limits, a newer protocol version) is \
            refused whole, told to the client, and ends the session with exit 3; silence past the \
            timeout exits 5; a replica that cannot be opened exits 4.
            """)

    let dir: String
    let selection: SyncSelection
    let readOnly, create: Bool
    let timeout: Double

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        selection = try SyncCommandSupport.selection(a.values("suite"))
        readOnly = a.flag("read-only")
        create = a.flag("create")
        timeout = try a.option("timeout").map { try Arguments.seconds($0, name: "--timeout") } ?? 60
        guard timeout > 0 else { throw CLIError.invalid("--timeout must be more than 0 seconds") }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let channel = SyncChannel(input: 0, output: 1, timeout: timeout)
        let store: Store
        do { store = try Arguments.openStore(dir, create: create) } catch let error as ConcordError {
            let hint = create ? "" : " (pass --create to make a new replica there)"
            SyncServer.refuse(channel, ConcordError.session(.peerStore, "\(error)\(hint)"))
            throw CLIError(ExitCode(for: error), "\(error)\(hint)")
        }
        do { try SyncServer(store: store, readOnly: readOnly, suites: selection).serve(channel) } catch let error as ConcordError {
            throw CLIError(ExitCode(for: error), error.message)
        }
        return .ok
    }
}
