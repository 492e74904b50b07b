import Concord

/// `sync-tool restore DIR SUITE KEY --conflict N`
struct RestoreCommand: Command {
    static let spec = CommandSpec(
        name: "restore", abstract: "Write a beaten write of a key (sync-tool why lists them) back as a new local write.",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The suite name."), .init(name: "KEY", help: "The key.")],
        options: [.init(name: "conflict", valueName: "N", help: "Which beaten write: 1 is the newest, as sync-tool why numbers them (required).")],
        discussion: """
            The losing value becomes an ordinary write of this replica with a fresh version: it wins here \
            and syncs to the peers like any other write (a beaten deletion is restored as a delete). The \
            conflict stays in the log. N outside the list is exit 1 and writes nothing; N that is not a \
            positive integer is exit 3.
            """)

    let dir, suite, key: String
    let number: Int

    init(_ a: ParsedArguments) throws {
        (dir, suite, key) = (a.positionals[0], a.positionals[1], a.positionals[2])
        guard let text = a.option("conflict") else { throw CLIError.usage("missing option --conflict N (usage: \(Self.spec.usage))") }
        number = try Arguments.int(text, name: "--conflict")
        guard number >= 1 else { throw CLIError.invalid("--conflict must be 1 or more (1 is the newest beaten write), not \(number)") }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let s = try Arguments.openStore(dir).suite(suite)
        let version: Version?
        do { version = try s.restore(key, conflict: number) } catch let error as ConcordError where error.code == .noSuchConflict {
            throw CLIError(.notFound, error.description)
        }
        let now = try s.record(forKey: key)
        let shown = try now?.value().map(ExplanationText.shown) ?? "deleted"
        if let version {
            io.out("restored \(suite)/\(printable(key)) to \(shown) (beaten write \(number)), version \(version)")
        } else {
            io.out("\(suite)/\(printable(key)) already holds nothing; nothing written")
        }
        return .ok
    }
}
