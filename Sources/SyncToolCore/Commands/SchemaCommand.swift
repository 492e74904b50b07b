import Concord

/// `sync-tool schema DIR [SUITE] [--json]`
struct SchemaCommand: Command {
    static let spec = CommandSpec(
        name: "schema", abstract: "Show each suite's schema version and its keys' merge policies.",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "Only this suite.", optional: true)],
        flags: [.init(name: "json", help: "One JSON object per suite.")],
        discussion: """
            A suite's schema version is set by the program that opens it with a schema (its migrations \
            ran in this replica up to that version); a program at an older version cannot write the suite. \
            Policies are the declared ones (KEY, or PREFIX* for a key prefix).
            """)

    let dir: String
    let suite: String?
    let json: Bool

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        suite = a.positional(1)
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        if let suite { try Names.validateSuite(suite) }
        let store = try Arguments.openStore(dir)
        let versions = Dictionary(try store.schemaVersions().map { ($0.suite, $0.version) }, uniquingKeysWith: max)
        let declared = Dictionary(grouping: try store.policyDeclarations(suite: suite), by: \.suite)
        let suites = suite.map { [$0] } ?? Set(versions.keys).union(declared.keys).sorted()
        for name in suites {
            let policies = declared[name] ?? []
            if json {
                let list = policies.map { d in
                    ValueText.object([(d.isPrefix ? "prefix" : "key", ValueText.json(d.key)), ("policy", ValueText.json(d.policy.rawValue))])
                }
                io.out(
                    ValueText.object([
                        ("suite", ValueText.json(name)), ("version", versions[name].map(String.init) ?? "null"),
                        ("policies", "[" + list.joined(separator: ",") + "]")
                    ]))
            } else {
                io.out("\(name)\tschema \(versions[name].map(String.init) ?? "none")")
                for d in policies { io.out("  \(printable(d.key))\(d.isPrefix ? "*" : "")\t\(d.policy)") }
            }
        }
        return .ok
    }
}
