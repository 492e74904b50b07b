import Concord
import ConcordHub
import Foundation

/// `sync-tool hub init|add-account|set-quota|stats|gc URL [NAME] [--partitions N] [--max-keys N] [--max-bytes B] [--opaque] [--retention DAYS] [--json]`
struct HubCommand: Command {
    static let spec = CommandSpec(
        name: "hub", abstract: "Set up and look after a PostgreSQL hub that devices of many accounts sync through.",
        positionals: [
            .init(name: "ACTION", help: "init, add-account, set-quota, stats or gc.", choices: Action.allCases.map(\.rawValue)),
            .init(name: "URL", help: "The hub database, as its owner: a libpq URI (postgresql://USER@HOST/DB) or keyword=value string."),
            .init(
                name: "NAME", help: "add-account: the account (a role): 1-48 of a-z, 0-9, _ (with --opaque: its label); set-quota: the account.",
                optional: true)
        ],
        options: [
            .init(name: "partitions", valueName: "N", help: "init: lay records and devices out in N hash partitions by account (2-1024)."),
            .init(
                name: "max-keys", valueName: "N",
                help: "init: new accounts' default; add-account, set-quota: the account's most live keys (or 'unlimited')."),
            .init(
                name: "max-bytes", valueName: "B",
                help: "init, add-account, set-quota: the most bytes of names and values (K, M, G suffixes; or 'unlimited')."),
            .init(name: "retention", valueName: "DAYS", help: "gc: collect tombstones deleted more than DAYS ago (default 30; 0 to 36500, fractions allowed).")
        ],
        flags: [
            .init(name: "opaque", help: "add-account: give the role a random name (acct_…) and keep NAME as the account's label."),
            .init(name: "json", help: "stats: print one JSON object.")
        ],
        discussion: """
            init         creates the hub's schema, or upgrades an older one (versioned; running it again changes nothing);
                         --partitions moves records and devices into N hash partitions by account (on an existing hub too:
                         its rows are copied in one transaction, devices wait meanwhile); --max-keys/--max-bytes set the
                         limits new accounts get (defaults 100000 keys, 64M bytes).
            add-account  creates account NAME: a new login role with a generated password (printed once) that sees only
                         its own rows; a role that exists already is refused (exit 3).
            set-quota    changes an account's limits. The database enforces them: a push that would take an account past
                         one is refused whole (the device's sync exits 6); one that shrinks its use always passes.
            stats        which server answered (primary or standby), accounts, rows, tombstones, changes, devices, bytes,
                         each account's use against its limits and tombstone horizon; warnings about account roles that
                         gained attributes or memberships.
            gc           deletes tombstones older than the retention and records each account's horizon; a device that
                         was away longer gets a full resync instead of a delta, so deleted keys stay deleted.
            """)

    enum Action: String, CaseIterable { case initialize = "init", addAccount = "add-account", setQuota = "set-quota", stats, gc }

    let action: Action
    let url: String
    let name: String?
    let retentionDays: Double
    let partitions: Int?
    let maxKeys: HubLimit?
    let maxBytes: HubLimit?
    let opaque: Bool
    let json: Bool

    init(_ a: ParsedArguments) throws {
        guard let action = Action(rawValue: a.positionals[0]) else {
            throw CLIError.usage("unknown hub action '\(printable(a.positionals[0]))' (init, add-account, set-quota, stats or gc)")
        }
        self.action = action
        url = a.positionals[1]
        name = a.positional(2)
        let needsName = action == .addAccount || action == .setQuota
        if needsName && name == nil { throw CLIError.usage("hub \(action.rawValue) needs the account NAME (usage: \(Self.spec.usage))") }
        if !needsName && name != nil { throw CLIError.usage("unexpected argument '\(printable(name!))' for hub \(action.rawValue)") }
        func only(_ option: String, for actions: [Action]) throws {
            guard actions.contains(action) else {
                throw CLIError.usage("--\(option) is for hub \(actions.map(\.rawValue).joined(separator: " and "))")
            }
        }
        if let text = a.option("retention") {
            try only("retention", for: [.gc])
            guard let days = Double(text), days.isFinite, days >= 0, days <= GcCommand.maxRetentionDays else {
                throw CLIError.invalid("--retention must be a number of days from 0 to \(Int(GcCommand.maxRetentionDays)), not '\(printable(text))'")
            }
            retentionDays = days
        } else {
            retentionDays = 30
        }
        if let text = a.option("partitions") {
            try only("partitions", for: [.initialize])
            guard let n = Int(text), (2...1024).contains(n) else {
                throw CLIError.invalid("--partitions must be a number from 2 to 1024, not '\(printable(text))'")
            }
            partitions = n
        } else {
            partitions = nil
        }
        maxKeys = try a.option("max-keys").map { text in
            try only("max-keys", for: [.initialize, .addAccount, .setQuota])
            return try Self.limit(text, name: "--max-keys", suffixes: false)
        }
        maxBytes = try a.option("max-bytes").map { text in
            try only("max-bytes", for: [.initialize, .addAccount, .setQuota])
            return try Self.limit(text, name: "--max-bytes", suffixes: true)
        }
        if action == .setQuota && maxKeys == nil && maxBytes == nil { throw CLIError.usage("hub set-quota needs --max-keys, --max-bytes or both") }
        opaque = a.flag("opaque")
        if opaque { try only("opaque", for: [.addAccount]) }
        json = a.flag("json")
    }

    /// `unlimited`, or a count from 0 (with `suffixes`, K, M or G multiply by 1024, 1024², 1024³).
    static func limit(_ text: String, name: String, suffixes: Bool) throws -> HubLimit {
        if text == "unlimited" { return .unlimited }
        var digits = Substring(text)
        var unit: Int64 = 1
        if suffixes, let last = digits.last, let shift = ["K": 10, "M": 20, "G": 30][String(last).uppercased()] {
            unit = 1 << Int64(shift)
            digits = digits.dropLast()
        }
        guard let n = Int64(digits), n >= 0, n <= Int64.max / unit else {
            throw CLIError.invalid(
                "\(name) must be 'unlimited' or a whole number from 0\(suffixes ? " (K, M, G allowed)" : ""), not '\(printable(text))'")
        }
        return .atMost(n * unit)
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        do {
            let admin = try HubAdmin(url)
            switch action {
            case .initialize:
                let setup = try admin.initialize(partitions: partitions, defaultMaxKeys: maxKeys, defaultMaxBytes: maxBytes)
                let layout =
                    setup.partitionedTables.isEmpty
                    ? "" : "; \(setup.partitionedTables.joined(separator: " and ")) now in \(setup.partitions ?? 0) hash partitions by account"
                let defaults = maxKeys != nil || maxBytes != nil
                io.out(
                    setup.from == setup.to && layout.isEmpty && !defaults
                        ? "hub at \(admin.endpoint) is at schema version \(setup.to) (nothing changed)"
                        : setup.from == 0
                            ? "hub created at \(admin.endpoint) (schema version \(setup.to))\(layout)"
                            : setup.from == setup.to
                                ? "hub at \(admin.endpoint) is at schema version \(setup.to)\(layout)"
                                : "hub at \(admin.endpoint) upgraded from schema version \(setup.from) to \(setup.to)\(layout)")
                if defaults {
                    let stats = try admin.stats()
                    io.out("new accounts get at most \(stats.defaultMaxKeys) keys and \(stats.defaultMaxBytes) bytes")
                }
                for warning in setup.warnings { io.err("warning: \(warning)") }
            case .addAccount:
                let password = HubCommandSupport.generatedPassword()
                let role = opaque ? HubAdmin.opaqueAccountName() : name!
                try admin.addAccount(role, password: password, maxKeys: maxKeys, maxBytes: maxBytes, label: opaque ? name! : nil)
                let (host, port, database) = HubCommandSupport.parts(of: admin.endpoint)
                io.out("account \(opaque ? "\(printable(name!)) (role \(role))" : role) added to the hub at \(admin.endpoint)")
                io.out("  role \(role): logs in with the password below and sees only this account's rows")
                io.out("  password: \(password)   (shown once: keep it in ~/.pgpass, or pass it as PGPASSWORD)")
                io.out("connect a device:")
                io.out("  sync-tool sync DIR 'postgresql://\(role)@\(host):\(port)/\(database)'")
            case .setQuota:
                let usage = try admin.setQuota(name!, maxKeys: maxKeys, maxBytes: maxBytes)
                io.out("account \(name!): \(usage)\(usage.isWithinLimits ? "" : " (over a limit: its devices can only shrink it now)")")
            case .stats:
                let stats = try admin.stats()
                if json { io.out(Self.json(stats)) } else { for line in Self.lines(stats) { io.out(line) } }
                for warning in stats.warnings { io.err("warning: \(warning)") }
            case .gc:
                let collected = try admin.collectTombstones(retention: .seconds(retentionDays * 86_400))
                io.out("collected \(collected) tombstones deleted more than \(HubCommandSupport.days(retentionDays)) days ago")
            }
            return .ok
        }
    }

    static func lines(_ stats: HubStats) -> [String] {
        var out = [
            "hub at \(stats.server) (\(stats.isPrimary ? "primary" : "standby, read-only"))",
            "accounts: \(stats.accounts), devices: \(stats.devices)",
            "rows: \(stats.rows) (\(stats.tombstones) tombstones), changes: \(stats.changes)",
            "bytes: \(stats.hubBytes) in the hub's tables, \(stats.databaseBytes) in the database",
            "layout: " + (stats.partitions.map { "records and devices in \($0) hash partitions by account" } ?? "records and devices one table each"),
            "new accounts get at most \(stats.defaultMaxKeys) keys and \(stats.defaultMaxBytes) bytes"
        ]
        for a in stats.perAccount {
            out.append(
                "  \(a.name)\(a.label.map { " (\(printable($0)))" } ?? ""): \(a.rows) rows (\(a.tombstones) tombstones), \(a.changes) changes, \(a.devices) devices, horizon seq \(a.horizonSeq); \(a.usage)\(a.usage.isWithinLimits ? "" : " (over a limit)")"
            )
        }
        return out
    }

    static func json(_ stats: HubStats) -> String {
        func limit(_ l: HubLimit) -> String { if case .atMost(let n) = l { String(n) } else { "null" } }
        let accounts = stats.perAccount.map { a in
            ValueText.object([
                ("name", ValueText.json(a.name)), ("label", a.label.map(ValueText.json) ?? "null"), ("rows", String(a.rows)),
                ("tombstones", String(a.tombstones)), ("changes", String(a.changes)), ("devices", String(a.devices)),
                ("horizon_seq", String(a.horizonSeq)), ("horizon_ms", String(a.horizonMilliseconds)),
                ("keys", String(a.usage.keys)), ("max_keys", limit(a.usage.maxKeys)), ("bytes", String(a.usage.bytes)),
                ("max_bytes", limit(a.usage.maxBytes))
            ])
        }
        return ValueText.object([
            ("server", ValueText.json(stats.server)), ("primary", String(stats.isPrimary)),
            ("partitions", stats.partitions.map(String.init) ?? "null"),
            ("accounts", String(stats.accounts)), ("rows", String(stats.rows)), ("tombstones", String(stats.tombstones)),
            ("changes", String(stats.changes)), ("devices", String(stats.devices)),
            ("hub_bytes", String(stats.hubBytes)), ("database_bytes", String(stats.databaseBytes)),
            ("default_max_keys", limit(stats.defaultMaxKeys)), ("default_max_bytes", limit(stats.defaultMaxBytes)),
            ("per_account", "[" + accounts.joined(separator: ",") + "]"),
            ("warnings", "[" + stats.warnings.map(ValueText.json).joined(separator: ",") + "]")
        ])
    }
}

/// What the hub commands share: generated passwords, endpoint parts.
enum HubCommandSupport {
    /// 24 random characters from an alphabet that needs no quoting in a URI or a shell.
    static func generatedPassword() -> String {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var g = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &g)] })
    }

    /// Host, port and database of a `user@host:port/db` endpoint.
    static func parts(of endpoint: String) -> (host: String, port: String, database: String) {
        let afterUser = endpoint.split(separator: "@", maxSplits: 1).last.map(String.init) ?? endpoint
        let hostPort = afterUser.split(separator: "/", maxSplits: 1).first.map(String.init) ?? afterUser
        let database = afterUser.split(separator: "/", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let port = hostPort.split(separator: ":").last.map(String.init) ?? "5432"
        let host = String(hostPort.dropLast(port.count + 1))
        return (host, port, database)
    }

    static func days(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
}
