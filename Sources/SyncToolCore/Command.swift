import Concord
import Foundation

/// Where a command writes: standard output and standard error (tests pass collectors).
public struct CommandIO: Sendable {
    public let out: @Sendable (String) -> Void
    public let err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// Line-buffered standard output and standard error.
    public static let standard = CommandIO(
        out: { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) },
        err: { line in FileHandle.standardError.write(Data((line + "\n").utf8)) })
}

/// One `sync-tool` command: its spec (for parsing and help), built from parsed arguments, then run.
public protocol Command: Sendable {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws
    func run(_ io: CommandIO) throws -> ExitCode
}

/// The `sync-tool` entry point: finds the command, parses its arguments, runs it,
/// and turns every error into one line on stderr and its exit code.
public enum SyncTool {
    /// Every command, in the order `--help` lists them.
    public static let commands: [any Command.Type] = [
        SetCommand.self, GetCommand.self, DeleteCommand.self, IncrCommand.self, PolicyCommand.self, ScopeCommand.self, SchemaCommand.self,
        ListCommand.self, SuitesCommand.self, ResetCommand.self, InfoCommand.self, NameCommand.self, CheckCommand.self,
        LogCommand.self, WatchCommand.self,
        SyncCommand.self, ServeCommand.self, ExportCommand.self, ImportCommand.self, ConflictsCommand.self, WhyCommand.self,
        RestoreCommand.self, KeygenCommand.self, EncryptCommand.self, RotateKeyCommand.self, HubCommand.self,
        BackupCommand.self, RecoverCommand.self, StatCommand.self, StatusCommand.self, GcCommand.self, CompletionsCommand.self
    ]

    public static var help: String {
        var out =
            "Usage: sync-tool COMMAND [ARGUMENTS] [OPTIONS]\n\nConcord's command-line tool: read, write, watch and check replica directories.\n\nCommands:\n"
        for c in commands { out += "  " + c.spec.name.padding(toLength: 13, withPad: " ", startingAt: 0) + c.spec.abstract + "\n" }
        out +=
            "\nRun 'sync-tool COMMAND --help' for a command's arguments; 'sync-tool --version [--json]' for the version and formats.\nEvery command takes --key-file FILE (or CONCORD_KEY_FILE): the key of the encrypted suites it reads or writes.\nExit codes: 0 ok, 1 not found, 2 usage, 3 invalid input (an encrypted suite without its key), 4 store or hub error, 5 peer (remote or hub) unreachable, login refused or connection dropped, 6 over the hub account's quota (push refused), 7 another key than the suite's, 8 a key the suite was rotated from, 10 changes pending (--dry-run)."
        return out
    }

    /// Runs `sync-tool` with `arguments` (without the program name); returns the exit code.
    public static func run(_ arguments: [String], io: CommandIO = .standard) -> Int32 {
        guard let name = arguments.first else {
            io.err(help)
            return ExitCode.usage.rawValue
        }
        if name == "--help" || name == "-h" || name == "help" {
            io.out(help)
            return ExitCode.ok.rawValue
        }
        if name == "--version" || name == "-V" {
            let rest = arguments.dropFirst()
            guard rest.allSatisfy({ $0 == "--json" }) else {
                io.err("sync-tool: unexpected argument '\(printable(rest.first { $0 != "--json" }!))' after \(name) (only --json)")
                return ExitCode.usage.rawValue
            }
            io.out(rest.isEmpty ? SyncToolVersion.text : SyncToolVersion.json)
            return ExitCode.ok.rawValue
        }
        guard let type = commands.first(where: { $0.spec.name == name }) else {
            io.err("sync-tool: unknown command '\(printable(name))' (run sync-tool --help)")
            return ExitCode.usage.rawValue
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            io.out(type.spec.help)
            return ExitCode.ok.rawValue
        }
        // A damaged page LMDB cannot use ends the process there: say so on one line, exit 4.
        StoreDamage.exitInstead(code: ExitCode.storeError.rawValue, prefix: "sync-tool \(name): ")
        do {
            let (keyFile, others) = try Arguments.splitKeyFile(rest)
            let command = try type.init(try type.spec.parse(others))
            return try Arguments.$keyFile.withValue(keyFile) { try command.run(io).rawValue }
        } catch let error as CLIError {
            io.err(oneLine("sync-tool \(name): \(error.message)"))
            return error.code.rawValue
        } catch let error as ConcordError {
            io.err(oneLine("sync-tool \(name): \(error)"))
            return ExitCode(for: error).rawValue
        } catch {
            io.err(oneLine("sync-tool \(name): \(error)"))
            return ExitCode.storeError.rawValue
        }
    }

    /// An error message on one line, as the CLI promises (a message from a library may hold several).
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

/// Helpers every command shares.
enum Arguments {
    /// Opens an existing store (read-side commands never create one), holding the key of
    /// `--key-file` (or `CONCORD_KEY_FILE`) for its encrypted suites.
    static func openStore(_ path: String, create: Bool = false) throws -> Store {
        let store = try Store(path: path, options: nil, create: create)
        if let key = try suiteKey() { try store.holdForEncryptedSuites(key) }
        return store
    }

    /// The key file the command was given (`--key-file FILE`), for the command's run.
    @TaskLocal static var keyFile: String?

    /// The key of `--key-file`, else of the file `CONCORD_KEY_FILE` names; nil when neither is given.
    static func suiteKey() throws -> EncryptionKey? {
        let environment = ProcessInfo.processInfo.environment["CONCORD_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = keyFile ?? environment else { return nil }
        return try EncryptionKey(contentsOfFile: path)
    }

    /// `arguments` without `--key-file FILE` (or `--key-file=FILE`), which every command takes, and its value.
    static func splitKeyFile(_ arguments: [String]) throws -> (keyFile: String?, rest: [String]) {
        var (keyFile, rest): (String?, [String]) = (nil, [])
        var index = 0
        while index < arguments.count {
            let arg = arguments[index]
            index += 1
            if arg == "--" {
                rest += arguments[(index - 1)...]
                break
            }
            if arg == "--key-file" || arg.hasPrefix("--key-file=") {
                guard keyFile == nil else { throw CLIError.usage("--key-file is given twice") }
                if arg == "--key-file" {
                    guard index < arguments.count else { throw CLIError.usage("--key-file needs a file (--key-file FILE)") }
                    keyFile = arguments[index]
                    index += 1
                } else {
                    keyFile = String(arg.dropFirst("--key-file=".count))
                }
                continue
            }
            rest.append(arg)
        }
        return (keyFile, rest)
    }

    static func int(_ text: String, name: String) throws -> Int {
        guard let v = Int(text) else { throw CLIError.invalid("\(name) must be an integer, not '\(printable(text))'") }
        return v
    }

    static func seconds(_ text: String, name: String) throws -> Double {
        guard let v = Double(text), v >= 0, v.isFinite else { throw CLIError.invalid("\(name) must be a number of seconds, not '\(printable(text))'") }
        return v
    }
}
