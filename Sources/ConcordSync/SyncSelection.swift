/// Which suites a sync, export or bundle covers: all of them, or a named few.
///
/// ```swift
/// let only = try SyncSelection(suites: ["prefs", "ui"])
/// let sync = Synchronizer(selection: only)
/// ```
public struct SyncSelection: Hashable, Sendable, CustomStringConvertible {
    /// The suites, sorted and unique, or nil for every suite.
    public let suites: [String]?

    /// Every suite.
    public static let all = SyncSelection(checked: nil)

    /// The named suites (validated; an empty list means every suite).
    public init(suites: [String]) throws {
        for name in suites { try Names.validateSuite(name) }
        self.init(checked: suites.isEmpty ? nil : Array(Set(suites)).sorted())
    }

    init(checked suites: [String]?) { self.suites = suites }

    /// Whether the selection covers the suite named `suite`.
    public func includes(_ suite: String) -> Bool { suites.map { $0.contains(suite) } ?? true }

    /// The cursor scopes this selection moves.
    package var scopes: [SyncScope] { suites.map { $0.map(SyncScope.suite) } ?? [.allSuites] }

    public var description: String { suites?.joined(separator: ",") ?? "all suites" }
}
