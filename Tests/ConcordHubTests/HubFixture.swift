import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One PostgreSQL server for this test process (started on first use, stopped at exit), and per test
/// a fresh database holding an initialized hub, with helpers to add accounts and open stores.
enum SharedPostgres {
    private static let server = Mutex<ScratchPostgres?>(nil)

    static func get() throws -> ScratchPostgres {
        try server.withLock { s in
            if let s { return s }
            let made = try ScratchPostgres()
            s = made
            atexit { SharedPostgres.shutdown() }
            return made
        }
    }

    static func shutdown() {
        let s = server.withLock { s -> ScratchPostgres? in
            defer { s = nil }
            return s
        }
        s?.destroy()
    }
}

/// How a hub's per-account tables are laid out: the tests that must behave alike on both run on each.
enum HubLayout: String, CaseIterable, Sendable, CustomStringConvertible {
    case plain
    case partitioned

    /// The partitions `hub init` is asked for.
    var partitions: Int? { self == .partitioned ? 4 : nil }
    var description: String { rawValue }
}

/// A hub in a database of its own on a PostgreSQL server.
final class HubFixture: @unchecked Sendable {
    let server: ScratchPostgres
    let database: String
    let tmp: TemporaryDirectory
    /// Account names get this prefix: roles are shared by every database of the server.
    let prefix: String

    /// A fresh database on the shared server (or on `server`, for tests that stop theirs), holding a
    /// hub laid out as `layout`.
    init(server: ScratchPostgres? = nil, layout: HubLayout = .plain) throws {
        self.server = try server ?? SharedPostgres.get()
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10).lowercased()
        database = "hub_\(id)"
        prefix = "a\(id)_"
        tmp = try TemporaryDirectory("concord-hub")
        let admin = try PostgresConnection(ConnectionString(self.server.url()))
        try admin.execute("CREATE DATABASE \(database)")
        try HubAdmin(adminURL).initialize(partitions: layout.partitions)
    }

    deinit { tmp.remove() }

    var adminURL: String { server.url(database: database) }

    /// Creates an account and returns its name, a URL that logs in as it, and its password.
    func account(_ name: String, maxKeys: HubLimit? = nil, maxBytes: HubLimit? = nil) throws -> (name: String, url: String, password: String) {
        let full = prefix + name
        let password = "pw_" + UUID().uuidString.prefix(12)
        try HubAdmin(adminURL).addAccount(full, password: password, maxKeys: maxKeys, maxBytes: maxBytes)
        return (full, server.url(database: database, user: full, password: String(password)), String(password))
    }

    /// A connection to the hub's database as the admin.
    func admin() throws -> PostgresConnection { try PostgresConnection(ConnectionString(adminURL)) }

    func store(_ name: String) throws -> Store { try Store(path: tmp.path(name)) }
    func path(_ name: String) -> String { tmp.path(name) }
}

/// Every record of a store, as a map (for convergence checks).
func contents(_ store: Store) throws -> [SuiteKey: Record] {
    var out: [SuiteKey: Record] = [:]
    for suite in try store.suiteNames() {
        for (key, record) in try store.suite(suite).records() { out[SuiteKey(suite: suite, key: key)] = record }
    }
    return out
}
