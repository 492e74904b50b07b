/// Roles for the sync tests (issue 5). Returns nil for a role it does not know.
enum SyncRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? { nil }
}
