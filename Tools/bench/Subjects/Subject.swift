/// One system under test, open on one directory of its own: Concord or a baseline.
///
/// Every write method is one commit: `setDurably` makes one key durable before it returns
/// (for `UserDefaults`, `set` then `synchronize()`), `setBatch` writes all its keys in one commit.
protocol Subject: AnyObject {
    func readString(_ key: String) throws -> String?
    func readInt(_ key: String) throws -> Int?
    func setDurably(_ key: String, _ value: BenchValue) throws
    func setBatch(_ items: ArraySlice<(key: String, value: BenchValue)>) throws
    /// How many keys start with `prefix` (used to count which writes survived).
    func countKeys(prefix: String) throws -> Int
}

/// The systems the benchmark compares.
enum SubjectKind: String, CaseIterable, Codable, Sendable {
    case concord
    case lmdb
    case userDefaults = "user-defaults"
    case sqlite

    /// The memory map every LMDB-based system starts with: 4 GiB of address space (not of disk).
    static let mapBytes = 4 << 30

    /// The name the table shows.
    var displayName: String {
        switch self {
        case .concord: "Concord"
        case .lmdb: "raw LMDB"
        case .userDefaults: "UserDefaults"
        case .sqlite: "SQLite"
        }
    }

    /// Opens (creating if needed) this system's store in `directory`, which must exist.
    func open(directory: String) throws -> any Subject {
        switch self {
        case .concord: try ConcordSubject(directory: directory)
        case .lmdb: try RawLMDBSubject(directory: directory)
        case .userDefaults: UserDefaultsSubject(directory: directory)
        case .sqlite: try SQLiteSubject(directory: directory)
        }
    }

    /// Fills a new store in `directory` with keys `0..<count` of the dataset.
    /// Most systems get batched commits; `UserDefaults` gets its property list written directly,
    /// because its `set` copies the whole domain on Linux (O(keys) per call) and could not fill
    /// 100,000 keys in reasonable time. The file is the one `UserDefaults` itself reads.
    func populate(directory: String, count: Int) throws {
        if self == .userDefaults {
            try UserDefaultsSubject.writePropertyList(directory: directory, count: count)
            return
        }
        let subject = try open(directory: directory)
        let chunk = 50_000
        var start = 0
        while start < count {
            let end = Swift.min(count, start + chunk)
            let items = (start..<end).map { (key: Dataset.key($0), value: Dataset.value($0)) }
            try subject.setBatch(items[...])
            start = end
        }
    }
}
