import Concord
import ConcordHub
import Foundation

/// `sync-tool hub init|add-account|stats|gc URL [NAME] [--retention DAYS] [--json]`
struct HubCommand: Command {
    static let spec = CommandSpec(
        name: "hub", abstract: "Set up and look after a PostgreSQL hub that devices of many accounts sync through.",
        positionals: [
            .init(name: "ACTION", help: "init, add-account, stats or gc.", choices: Action.allCases.map(\.rawValue)),
            .init(name: "URL", help: "The hub database's libpq URI, as its owner (postgresql://USER@HOST/DB)."),
            .init(name: "NAME", help: "add-account: the account (a role): 1-48 of a-z, 0-9, _.", optional: true)
        ],
        options: [
            .init(name: "retention", valueName: "DAYS", help: "gc: collect tombstones deleted more than DAYS ago (default 30; 0 to 36500, fractions allowed).")
        ],
        flags: [.init(name: "json", help: "stats: print one JSON object.")],
        discussion: """
            init         creates the hub's schema, or upgrades an older one (versioned; running it again changes nothing).
            add-account  creates account NAME: a login role with a generated password (printed once) that sees only its own rows.
            stats        accounts, rows, tombstones, changes, devices, bytes, and each account's tombstone horizon.
            gc           deletes tombstones older than the retention and records each account's horizon; a device that
                         was away longer gets a full resync instead of a delta, so deleted keys stay deleted.
            """)

    enum Action: String, CaseIterable { case initialize = "init", addAccount = "add-account", stats, gc }

    let action: Action
    let url: String
    let name: String?
    let retentionDays: Double
    let json: Bool

    init(_ a: ParsedArguments) throws {
        guard let action = Action(rawValue: a.positionals[0]) else {
            throw CLIError.usage("unknown hub action '\(printable(a.positionals[0]))' (init, add-account, stats or gc)")
        }
        self.action = action
        url = a.positionals[1]
        name = a.positional(2)
        if action == .addAccount && name == nil { throw CLIError.usage("hub add-account needs the account NAME (usage: \(Self.spec.usage))") }
        if action != .addAccount && name != nil { throw CLIError.usage("unexpected argument '\(printable(name!))' for hub \(action.rawValue)") }
        if let text = a.option("retention") {
            guard action == .gc else { throw CLIError.usage("--retention is for hub gc") }
            guard let days = Double(text), days.isFinite, days >= 0, days <= GcCommand.maxRetentionDays else {
                throw CLIError.invalid("--retention must be a number of days from 0 to \(Int(GcCommand.maxRetentionDays)), not '\(printable(text))'")
            }
            retentionDays = days
        } else {
            retentionDays = 30
        }
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        try HubCommandSupport.mappingErrors {
            let admin = try HubAdmin(url)
            switch action {
            case .initialize:
                let (from, to) = try admin.initialize()
                io.out(
                    from == to
                        ? "hub at \(admin.endpoint) is at schema version \(to) (nothing changed)"
                        : from == 0
                            ? "hub created at \(admin.endpoint) (schema version \(to))"
                            : "hub at \(admin.endpoint) upgraded from schema version \(from) to \(to)")
            case .addAccount:
                let password = HubCommandSupport.generatedPassword()
                try admin.addAccount(name!, password: password)
                let (host, port, database) = HubCommandSupport.parts(of: admin.endpoint)
                io.out("account \(name!) added to the hub at \(admin.endpoint)")
                io.out("  role \(name!): logs in with the password below and sees only this account's rows")
                io.out("  password: \(password)   (shown once: keep it in ~/.pgpass, or pass it as PGPASSWORD)")
                io.out("connect a device:")
                io.out("  sync-tool sync DIR 'postgresql://\(name!)@\(host):\(port)/\(database)'")
            case .stats:
                let stats = try admin.stats()
                if json {
                    let accounts = stats.perAccount.map { a in
                        ValueText.object([
                            ("name", ValueText.json(a.name)), ("rows", String(a.rows)), ("tombstones", String(a.tombstones)),
                            ("changes", String(a.changes)), ("devices", String(a.devices)),
                            ("horizon_seq", String(a.horizonSeq)), ("horizon_ms", String(a.horizonMilliseconds))
                        ])
                    }
                    io.out(
                        ValueText.object([
                            ("accounts", String(stats.accounts)), ("rows", String(stats.rows)), ("tombstones", String(stats.tombstones)),
                            ("changes", String(stats.changes)), ("devices", String(stats.devices)),
                            ("hub_bytes", String(stats.hubBytes)), ("database_bytes", String(stats.databaseBytes)),
                            ("per_account", "[" + accounts.joined(separator: ",") + "]")
                        ]))
                } else {
                    io.out("hub at \(admin.endpoint)")
                    io.out("accounts: \(stats.accounts), devices: \(stats.devices)")
                    io.out("rows: \(stats.rows) (\(stats.tombstones) tombstones), changes: \(stats.changes)")
                    io.out("bytes: \(stats.hubBytes) in the hub's tables, \(stats.databaseBytes) in the database")
                    for a in stats.perAccount {
                        io.out(
                            "  \(a.name): \(a.rows) rows (\(a.tombstones) tombstones), \(a.changes) changes, \(a.devices) devices, horizon seq \(a.horizonSeq)")
                    }
                }
            case .gc:
                let collected = try admin.collectTombstones(retentionMilliseconds: UInt64(retentionDays * 86_400_000))
                io.out("collected \(collected) tombstones deleted more than \(HubCommandSupport.days(retentionDays)) days ago")
            }
            return .ok
        }
    }
}

/// What the hub commands share: exit codes for hub errors, generated passwords, endpoint parts.
enum HubCommandSupport {
    /// Runs `body`, turning hub errors into their exit codes (5: unreachable or login refused).
    static func mappingErrors(_ body: () throws -> ExitCode) throws -> ExitCode {
        do { return try SyncCommandSupport.mappingErrors(body) } catch let error as HubError {
            throw CLIError(exitCode(for: error), error.description)
        }
    }

    static func exitCode(for error: HubError) -> ExitCode {
        switch error {
        case .postgres(let e) where e.kind == .malformedConnectionString: .invalidInput
        case .postgres(let e) where e.isConnectionFailure: .unreachable
        case .invalidAccountName, .accountExists: .invalidInput
        case .postgres, .notInitialized, .newerSchema, .accountNotVisible, .damagedRow: .storeError
        }
    }

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
