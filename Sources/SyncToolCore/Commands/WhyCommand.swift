import Concord
import Foundation

/// `sync-tool why DIR SUITE KEY [--json]`
struct WhyCommand: Command {
    static let spec = CommandSpec(
        name: "why", abstract: "Explain a value: its layer, version time and writer, how it arrived, its policy and parts, the writes it beat.",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The suite name."), .init(name: "KEY", help: "The key.")],
        flags: [.init(name: "json", help: "Print one JSON object.")],
        discussion: """
            Prints the value a read returns and the layer it came from (the stored record, or nothing: \
            defaults registered by a program live in that program only), the stored record's version as \
            a time and the replica that wrote it (with the name it gave itself, sync-tool name), how the \
            record arrived (written by a process of this replica, or merged by a sync from which peer, \
            and when), the merge policy and, for a counter, set, max or min key, each replica's part, and the \
            writes it beat (the conflict log's losers for the key, newest first, numbered for \
            sync-tool restore --conflict N). A key with nothing stored is not an error: it says so (exit 0).
            """)

    let dir, suite, key: String
    let json: Bool

    init(_ a: ParsedArguments) throws {
        (dir, suite, key) = (a.positionals[0], a.positionals[1], a.positionals[2])
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let why = try Arguments.openStore(dir).suite(suite).explain(key)
        if json {
            io.out(ExplanationText.json(why))
        } else {
            for line in ExplanationText.lines(why) { io.out(line) }
        }
        return .ok
    }
}
