import Concord

/// `sync-tool policy DIR SUITE [KEY [POLICY]] [--prefix] [--json]`
struct PolicyCommand: Command {
    static let spec = CommandSpec(
        name: "policy", abstract: "Declare how a key's concurrent changes merge (lww, counter, max, min, set), or list the declarations.",
        positionals: [
            .init(name: "DIR", help: "The replica directory (created if missing when declaring)."), .init(name: "SUITE", help: "The suite name."),
            .init(name: "KEY", help: "The key (or, with --prefix, a key prefix); alone, prints its policy.", optional: true),
            .init(name: "POLICY", help: "lww, counter, max, min or set; none removes the declaration.", optional: true)
        ],
        flags: [
            .init(name: "prefix", help: "KEY is a prefix: declare for every key starting with it."),
            .init(name: "json", help: "List as one JSON object per line.")
        ],
        discussion: """
            lww (the default) keeps the last write; counter adds up every replica's increments (a set \
            takes back the increments its replica had seen); max and min only move one way; set is an \
            add-wins set of scalars (concurrent additions all survive, a removal removes what its \
            replica had seen). The declaration is stored in the replica and syncs with the data; two \
            different declarations made concurrently settle on the later one. A key keeps its value \
            when its policy changes.
            """)

    let dir, suite: String
    let key, policy: String?
    let prefix, json: Bool

    init(_ a: ParsedArguments) throws {
        (dir, suite, key, policy) = (a.positionals[0], a.positionals[1], a.positional(2), a.positional(3))
        prefix = a.flag("prefix")
        json = a.flag("json")
        if prefix && policy == nil { throw CLIError.usage("--prefix declares a policy: give KEY and POLICY") }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        try Names.validateSuite(suite)
        guard let key else {
            for d in try Arguments.openStore(dir).suite(suite).policyDeclarations() {
                if json {
                    io.out(
                        ValueText.object([
                            ("suite", ValueText.json(d.suite)), (d.isPrefix ? "prefix" : "key", ValueText.json(d.key)),
                            ("policy", ValueText.json(d.policy.rawValue)), ("version", ValueText.json(d.version.description))
                        ]))
                } else {
                    io.out("\(printable(d.key))\(d.isPrefix ? "*" : "")\t\(d.policy)")
                }
            }
            return .ok
        }
        guard let policy else {
            io.out(try Arguments.openStore(dir).suite(suite).policy(forKey: key).rawValue)
            return .ok
        }
        let chosen: MergePolicy?
        if policy == "none" {
            chosen = nil
        } else {
            guard let p = MergePolicy(rawValue: policy) else {
                throw CLIError.invalid(
                    "POLICY must be one of \(MergePolicy.allCases.map(\.rawValue).joined(separator: ", ")) or none, not '\(printable(policy))'")
            }
            chosen = p
        }
        let s = try Arguments.openStore(dir, create: true).suite(suite)
        if prefix { try s.declare(chosen, forKeysWithPrefix: key) } else { try s.declare(chosen, forKey: key) }
        return .ok
    }
}
