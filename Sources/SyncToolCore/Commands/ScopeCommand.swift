import Concord

/// `sync-tool scope DIR SUITE [KEY [device|synced]] [--prefix] [--json]`
struct ScopeCommand: Command {
    static let spec = CommandSpec(
        name: "scope", abstract: "Keep a key (or keys with a prefix) on this device, or sync it again; or list what is device-local.",
        positionals: [
            .init(name: "DIR", help: "The replica directory (created if missing when declaring)."), .init(name: "SUITE", help: "The suite name."),
            .init(name: "KEY", help: "The key (or, with --prefix, a key prefix); alone, prints its scope.", optional: true),
            .init(name: "SCOPE", help: "device (never leaves this replica) or synced.", optional: true)
        ],
        flags: [
            .init(name: "prefix", help: "KEY is a prefix: declare for every key starting with it."),
            .init(name: "json", help: "List as one JSON object per line.")
        ],
        discussion: """
            A device-local key is stored, read, watched and backed up here like any other, but its values \\
            never leave this replica: no sync, export, serve session, relay, live sync or hub push carries \\
            them, and they are never counted as pending. The declaration itself syncs, so every replica \\
            knows the key is local; each keeps its own value, and a replica ignores such a key's records \\
            sent by a peer that had not yet seen the declaration. A key's own declaration overrides its \\
            prefix's (scope DIR SUITE window.theme synced keeps one key of a device-local prefix syncing). A \\
            key made device-local after it synced keeps the value each replica holds; one made synced again \\
            goes out at the next sync, the newest write winning.
            """)

    let dir, suite: String
    let key, scope: String?
    let prefix, json: Bool

    init(_ a: ParsedArguments) throws {
        (dir, suite, key, scope) = (a.positionals[0], a.positionals[1], a.positional(2), a.positional(3))
        prefix = a.flag("prefix")
        json = a.flag("json")
        if prefix && scope == nil { throw CLIError.usage("--prefix declares a scope: give KEY and SCOPE") }
        if let scope, scope != "device" && scope != "synced" {
            throw CLIError.invalid("SCOPE must be device or synced, not '\(printable(scope))'")
        }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        try Names.validateSuite(suite)
        guard let key else {
            let store = try Arguments.openStore(dir)
            for d in try store.read({ try $0.deviceLocalKeys() }).declarations where d.suite == suite {
                let scope = d.isDeviceLocal ? "device" : "synced"
                if json {
                    io.out(
                        ValueText.object([
                            ("suite", ValueText.json(d.suite)), (d.isPrefix ? "prefix" : "key", ValueText.json(d.key)), ("scope", ValueText.json(scope))
                        ]))
                } else {
                    io.out("\(printable(d.key))\(d.isPrefix ? "*" : "")\t\(scope)")
                }
            }
            return .ok
        }
        guard let scope else {
            try Names.validateKey(key, inSuite: suite)
            io.out(try Arguments.openStore(dir).suite(suite).isDeviceLocal(key) ? "device" : "synced")
            return .ok
        }
        let s = try Arguments.openStore(dir, create: true).suite(suite)
        if prefix { try s.setDeviceLocal(scope == "device", forKeysWithPrefix: key) } else { try s.setDeviceLocal(scope == "device", forKey: key) }
        return .ok
    }
}
