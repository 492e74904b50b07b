import Foundation

/// Foundation's `UserDefaults` on Linux, in a suite of its own: the suite name is an absolute
/// path, so its property list lives at `DIR/defaults.plist` and nothing touches `~/.config`.
/// A durable set is `set` then `synchronize()` (which rewrites and fsyncs the whole file).
final class UserDefaultsSubject: Subject {
    private let defaults: UserDefaults

    static func suitePath(_ directory: String) -> String { directory + "/defaults" }

    init(directory: String) {
        // `init(suiteName:)` returns nil only for the app's own bundle identifier.
        defaults = UserDefaults(suiteName: Self.suitePath(directory))!
    }

    func readString(_ key: String) throws -> String? { defaults.string(forKey: key) }
    func readInt(_ key: String) throws -> Int? { defaults.integer(forKey: key) }

    func setDurably(_ key: String, _ value: BenchValue) throws {
        set(key, value)
        guard defaults.synchronize() else { throw BenchError("UserDefaults: synchronize() failed writing \(key)") }
    }

    func setBatch(_ items: ArraySlice<(key: String, value: BenchValue)>) throws {
        for (key, value) in items { set(key, value) }
        guard defaults.synchronize() else { throw BenchError("UserDefaults: synchronize() failed after a batch") }
    }

    func countKeys(prefix: String) throws -> Int {
        defaults.dictionaryRepresentation().keys.reduce(0) { $0 + ($1.hasPrefix(prefix) ? 1 : 0) }
    }

    private func set(_ key: String, _ value: BenchValue) {
        switch value {
        case .string(let s): defaults.set(s, forKey: key)
        case .int(let i): defaults.set(i, forKey: key)
        }
    }

    /// Writes the suite's property list with keys `0..<count`, in the XML format `UserDefaults` writes.
    static func writePropertyList(directory: String, count: Int) throws {
        var table: [String: Any] = [:]
        table.reserveCapacity(count)
        for i in 0..<count {
            switch Dataset.value(i) {
            case .string(let s): table[Dataset.key(i)] = s
            case .int(let n): table[Dataset.key(i)] = n
            }
        }
        let data = try PropertyListSerialization.data(fromPropertyList: table, format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: suitePath(directory) + ".plist"), options: .atomic)
    }
}
