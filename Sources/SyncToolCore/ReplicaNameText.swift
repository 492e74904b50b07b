import Concord

/// Replica ids as reports print them: with the name each replica gave itself beside the id, when
/// that name has reached the replica reporting (`sync-tool name`).
struct ReplicaNameText {
    let names: [ReplicaID: String]

    init(_ store: Store) throws { names = try store.replicaNames() }

    /// `id (name)`, or the id alone.
    func named(_ id: ReplicaID) -> String { names[id].map { "\(id) (\(printable($0)))" } ?? id.description }

    /// `text` with every replica id that has a name followed by the name in parentheses (ids appear
    /// in versions, `hlc@id`, and in origins, `sync from id`).
    func annotated(_ text: String) -> String {
        var out = text
        for (id, name) in names { out = out.replacingOccurrences(of: id.description, with: "\(id) (\(printable(name)))") }
        return out
    }

    /// The JSON field naming `id`'s replica, when it has a name.
    func jsonField(_ field: String, _ id: ReplicaID) -> [(String, String)] {
        names[id].map { [(field, ValueText.json($0))] } ?? []
    }
}
