import Synchronization

/// The schema each suite was opened with in this process (``Store/suite(_:schema:)``), per replica:
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

    /// Made on the first registration, like `DefaultsRegistry`'s, so opening a store costs no runtime lookups.
    private let table = Mutex<Table?>(nil)
    private final class Table {
        var entries: [String: Entry] = [:]
    }

    package func register(_ entry: Entry, suite: String) {
        table.withLock { table in
            let t = table ?? Table()
            t.entries[suite] = entry
            table = t
        }
    }

    package func entry(suite: String) -> Entry? {
        table.withLock { $0?.entries[suite] }
    }
}
