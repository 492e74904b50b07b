import Concord

/// Concord through its public API: one suite of a store, typed gets and sets, default durability
/// (every commit fsynced). Its map starts as large as raw LMDB's (`SubjectKind.mapBytes`), so both get the
/// same settings; `defaultMap` keeps Concord's default initial map, which grows by doubling, and every
/// growth aborts the write transaction and runs it again.
final class ConcordSubject: Subject {
    static let suiteName = "bench"
    let store: Store
    let suite: Suite

    init(directory: String, defaultMap: Bool = false) throws {
        var options = Store.Options()
        if !defaultMap { options.initialMapSize = SubjectKind.mapBytes }
        store = try Store(path: directory, options: options)
        suite = try store.suite(Self.suiteName)
    }

    func readString(_ key: String) throws -> String? { try suite.get(key, as: String.self) }
    func readInt(_ key: String) throws -> Int? { try suite.get(key, as: Int.self) }

    func setDurably(_ key: String, _ value: BenchValue) throws {
        switch value {
        case .string(let s): try suite.set(s, forKey: key)
        case .int(let i): try suite.set(i, forKey: key)
        }
    }

    func setBatch(_ items: ArraySlice<(key: String, value: BenchValue)>) throws {
        try suite.batch { batch in
            for (key, value) in items {
                switch value {
                case .string(let s): try batch.set(s, forKey: key)
                case .int(let i): try batch.set(i, forKey: key)
                }
            }
        }
    }

    func countKeys(prefix: String) throws -> Int {
        try suite.keys().reduce(0) { $0 + ($1.hasPrefix(prefix) ? 1 : 0) }
    }
}
