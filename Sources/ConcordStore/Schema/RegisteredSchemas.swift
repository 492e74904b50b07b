import Synchronization

/// The schema each suite was opened with in this process (`Store.suite(_:schema:)`), per replica:
/// local writes check it against the schema version the replica stores (a newer stored version
/// refuses them), and merges of the suite apply its migrations to what they bring in.
package final class RegisteredSchemas: Sendable {
    package struct Entry: Sendable {
        /// The schema version this process's code writes.
        package let version: Int
        /// Applies the migrations to `keys` of the suite in the transaction of a merge (catching up
        /// values written by replicas at an older schema); returns how many records it changed.
        package let migrateIncoming: @Sendable (ReplicaTransaction, _ suite: String, _ keys: [String]) throws -> Int

        package init(version: Int, migrateIncoming: @escaping @Sendable (ReplicaTransaction, String, [String]) throws -> Int) {
            self.version = version
            self.migrateIncoming = migrateIncoming
        }
    }

    private let table = Mutex<[String: Entry]>([:])

    package func register(_ entry: Entry, suite: String) {
        table.withLock { $0[suite] = entry }
    }

    package func entry(suite: String) -> Entry? {
        table.withLock { $0[suite] }
    }
}
