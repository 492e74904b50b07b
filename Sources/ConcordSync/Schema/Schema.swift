/// A suite's schema: its version, and the migrations that bring values written by older versions
/// of the program to it. Open the suite with it (``Store/suite(_:schema:)``):
///
/// - each migration runs once per replica, in one write transaction with the new version number,
///   as ordinary writes that sync;
/// - values that arrive later from a replica still at an older version (merged by this process, or
///   found when the suite is next opened) are migrated on the way in: renamed, converted, dropped;
/// - a replica that holds the suite at a newer version than this program's refuses this program's
///   writes to it (``ConcordError`` `.newerSchema`) instead of writing values of the old shape.
///
/// ```swift
/// let schema = Schema(version: 2, migrations: [
///     Migration(to: 2,
///               .rename("theme", to: "appearance.theme"),
///               .convert("fontSize", from: Int.self, to: Double.self) { Double($0) },
///               .drop("legacyFlag"),
///               .policy(.counter, forKey: "launchCount")),
/// ])
/// let app = try store.suite("app", schema: schema)
/// ```
///
/// Every step only acts on values of the old shape, so applying it again changes nothing, and
/// every replica migrating the same value writes the same record: a moved record keeps its
/// version, and a conversion or removal gets a version derived from the value it replaces (just
/// after it), so it never overtakes a newer write made elsewhere. A key a migration renamed or
/// dropped must not be reused for something else by a later version.
public struct Schema: Sendable {
    /// The version this program writes.
    public let version: Int
    /// The migrations, each bringing the suite to its `version`.
    public let migrations: [Migration]

    /// A schema at `version`, with the migrations that bring older values to it (in any order).
    public init(version: Int, migrations: [Migration] = []) {
        self.version = version
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Refuses migrations to versions outside 1…`version`, or two to one version.
    func validate(suite: String) throws {
        guard version >= 0 else { throw ConcordError.invalidSchema(suite: suite, reason: "its version is \(version), below 0") }
        for (i, migration) in migrations.enumerated() {
            guard (1...max(1, version)).contains(migration.version), migration.version <= version else {
                throw ConcordError.invalidSchema(suite: suite, reason: "a migration to version \(migration.version) is outside 1…\(version)")
            }
            if i > 0, migrations[i - 1].version == migration.version {
                throw ConcordError.invalidSchema(suite: suite, reason: "two migrations to version \(migration.version)")
            }
        }
    }
}

/// The steps that bring a suite to one schema version, applied in order.
///
/// ```swift
/// Migration(to: 3, .rename("appearance.theme", to: "ui.theme"), .drop("beta"))
/// ```
public struct Migration: Sendable {
    /// The schema version this migration brings the suite to.
    public let version: Int
    /// The steps, applied in order.
    public let steps: [MigrationStep]

    /// A migration to `version` made of `steps`, applied in order.
    public init(to version: Int, _ steps: MigrationStep...) {
        self.version = version
        self.steps = steps
    }

    /// A migration to `version` made of `steps`, applied in order.
    public init(to version: Int, steps: [MigrationStep]) {
        self.version = version
        self.steps = steps
    }
}

/// One step of a migration.
///
/// ```swift
/// let steps: [MigrationStep] = [
///     .rename("theme", to: "appearance.theme"),
///     .convert("fontSize", from: Int.self, to: Double.self) { Double($0) },
///     .drop("legacyFlag"),
///     .policy(.counter, forKey: "launchCount"),
/// ]
/// ```
public struct MigrationStep: Sendable {
    enum Action: Sendable {
        case rename(from: String, to: String)
        case drop(String)
        case declare(MergePolicy, key: String, isPrefix: Bool)
        /// Applies to a stored value that reads as the old type and is not stored as the new one is.
        case convert(String, applies: @Sendable (Value) -> Bool, transform: @Sendable (Value) throws -> Value?)
    }

    let action: Action

    /// Moves the value of `key` to `newKey` (merged with whatever `newKey` holds, by the usual rule).
    public static func rename(_ key: String, to newKey: String) -> MigrationStep {
        MigrationStep(action: .rename(from: key, to: newKey))
    }

    /// Removes `key`.
    public static func drop(_ key: String) -> MigrationStep {
        MigrationStep(action: .drop(key))
    }

    /// Declares the merge policy of `key` (see ``Suite/declare(_:forKey:)``); the key keeps its value.
    public static func policy(_ policy: MergePolicy, forKey key: String) -> MigrationStep {
        MigrationStep(action: .declare(policy, key: key, isPrefix: false))
    }

    /// Declares the merge policy of every key starting with `prefix`.
    public static func policy(_ policy: MergePolicy, forKeysWithPrefix prefix: String) -> MigrationStep {
        MigrationStep(action: .declare(policy, key: prefix, isPrefix: true))
    }

    /// Converts the value of `key` from `Old` to `New` with `transform` (nil: remove the key). It
    /// applies to a stored value that reads as an `Old` and is not stored as a `New` is (an `.int`
    /// reads as a `Double` too, but a `Double` is stored as a `.double`) — so the two types must be
    /// told apart by what is stored (`Int` → `Double`, `String` → a `Codable` struct); for a change
    /// within one type, rename the key. Applies to keys under the lww policy.
    public static func convert<Old: StorableValue, New: StorableValue>(
        _ key: String, from: Old.Type, to: New.Type,
        _ transform: @escaping @Sendable (Old) throws -> New?
    ) -> MigrationStep {
        MigrationStep(
            action: .convert(
                key,
                applies: { value in
                    // Of the old shape: it reads as an `Old`, and is not already stored as a `New` is (an
                    // `Int` also reads as a `Double`, but is not stored as one).
                    guard (try? Old(storedValue: value)) != nil else { return false }
                    guard let asNew = try? New(storedValue: value) else { return true }
                    return (try? asNew.storedValue()) != value
                },
                transform: { value in
                    try transform(try Old(storedValue: value))?.storedValue()
                }))
    }
}
