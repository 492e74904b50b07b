import CLMDB

/// A named database inside an `Environment` (an LMDB "DBI").
///
/// Handles are opened once per environment and stay valid for its life;
/// they are never closed casually (`mdb_dbi_close` races with other threads).
///
/// ```swift
/// let records = try env.database(named: "records")
/// ```
package struct Database: Hashable, Sendable {
    /// The name the database was opened with.
    package let name: String
    let dbi: MDB_dbi
}
