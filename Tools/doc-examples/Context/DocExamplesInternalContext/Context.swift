@_exported import DocExamplesContext

@testable import LMDB

// The names the doc comments of declarations that are not public use without declaring them, beside
// the public examples' cast (re-exported).

/// An LMDB environment, a named database of it and a write transaction.
package let env: Environment = given()
/// A named database of `env`.
package let db: Database = given()
/// A write transaction of `env`.
nonisolated(unsafe) package let txn: Transaction = given()
