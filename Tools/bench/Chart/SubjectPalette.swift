/// The colour each system is drawn in, the same in every workload: Concord (and its variants: a
/// default map, via a hub, over ssh) blue, raw LMDB orange, UserDefaults purple, SQLite green, every
/// other row grey (other baselines, and rows naming another path rather than a system: a policy, an
/// async set, a table layout).
enum SubjectPalette {
    struct Entry {
        let label: String
        let color: String
    }

    static let concord = Entry(label: "Concord (and its variants)", color: "#1f66b4")
    static let lmdb = Entry(label: "raw LMDB", color: "#e8710a")
    static let userDefaults = Entry(label: "UserDefaults", color: "#8e4fbf")
    static let sqlite = Entry(label: "SQLite", color: "#2e9c48")
    static let other = Entry(label: "others (other baselines, other paths)", color: "#7a7a7a")

    static let legend = [concord, lmdb, userDefaults, sqlite, other]

    static func entry(for subject: String) -> Entry {
        if subject.hasPrefix("Concord") { return concord }
        if subject == SubjectKind.lmdb.displayName { return lmdb }
        if subject == SubjectKind.userDefaults.displayName { return userDefaults }
        if subject == SubjectKind.sqlite.displayName { return sqlite }
        return other
    }
}
