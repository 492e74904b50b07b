import ConcordHub
import Foundation
import ScratchPostgres

/// `--hub`: every sync of the run goes through one account on a PostgreSQL hub this run starts
/// (a scratch server in a temporary directory), instead of between two directories. Syncs are
/// `sync-tool sync DIR postgresql://…` processes, killed at random like the others (mid-push and
/// mid-pull); the final round syncs every replica with the hub twice.
final class StressHub {
    let server: ScratchPostgres
    let url: String
    let password: String

    init() throws {
        server = try ScratchPostgres()
        let database = "stress"
        try PostgresConnection(ConnectionString(server.url())).execute("CREATE DATABASE \(database)")
        let admin = try HubAdmin(server.url(database: database))
        try admin.initialize()
        password = "stress-" + UUID().uuidString
        try admin.addAccount("stress", password: password)
        url = server.url(database: database, user: "stress") // the password travels in PGPASSWORD, not in argv
    }

    deinit { server.destroy() }

    /// The arguments of one sync of `directory` through the hub.
    func syncArguments(_ directory: String) -> [String] { ["sync", directory, url, "--json"] }

    /// The environment a sync process needs (the account's password).
    var environment: [String: String] { ProcessInfo.processInfo.environment.merging(["PGPASSWORD": password]) { _, new in new } }
}
