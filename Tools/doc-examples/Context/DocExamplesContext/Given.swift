import Concord

/// A value the examples assume exists; never called (the examples are compiled, not run).
public func given<T>() -> T { fatalError("doc-examples compiles the examples; it never runs them") }
