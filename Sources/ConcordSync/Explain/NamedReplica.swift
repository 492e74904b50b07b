/// A replica as reports show it: its id, and the name it gave itself (``Store/setName(_:)-5yr2m``) when that
/// name has reached the replica reporting.
///
/// ```swift
/// let writer = try suite.explain("theme").writer
/// print(writer?.name ?? "unnamed", writer?.id ?? "nobody")   // Ada's laptop 3f2a…
/// ```
public struct NamedReplica: Hashable, Sendable, CustomStringConvertible {
    /// The replica's id.
    public let id: ReplicaID
    /// The name it gave itself, if this replica holds one.
    public let name: String?

    package init(id: ReplicaID, name: String?) {
        self.id = id
        self.name = name
    }

    /// The id, followed by the name in parentheses when there is one.
    public var description: String { name.map { "\(id) (\($0))" } ?? id.description }
}
