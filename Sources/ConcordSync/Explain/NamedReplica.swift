/// A replica as the command-line tool's reports show it: its id, and the name it gave itself
/// (``Store/setName(_:)-5yr2m``) when that name has reached the replica reporting.
package struct NamedReplica: Hashable, Sendable, CustomStringConvertible {
    /// The replica's id.
    package let id: ReplicaID
    /// The name it gave itself, if this replica holds one.
    package let name: String?

    package init(id: ReplicaID, name: String?) {
        self.id = id
        self.name = name
    }

    /// The id, followed by the name in parentheses when there is one.
    package var description: String { name.map { "\(id) (\($0))" } ?? id.description }
}
