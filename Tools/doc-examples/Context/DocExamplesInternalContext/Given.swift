@testable import LMDB

/// A value the examples assume exists; never called (the examples are compiled, not run).
package func given<T>() -> T { fatalError("doc-examples compiles the examples; it never runs them") }
