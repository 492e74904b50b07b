/// Roles for the wrapper tests (issue 4). Returns nil for a role it does not know.
enum WrapperRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? { nil }
}
