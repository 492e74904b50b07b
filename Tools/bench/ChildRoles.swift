import Foundation

/// Dispatches `bench --child ROLE ARGS…` to the workload that owns the role.
enum ChildRoles {
    static func run(_ arguments: [String]) -> Int32 {
        guard let role = arguments.first else {
            FileHandle.standardError.write(Data("bench --child: missing role\n".utf8))
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            for workload in WorkloadRegistry.all {
                if let status = try workload.runChild(role: role, arguments: rest) { return status }
            }
            FileHandle.standardError.write(Data("bench --child: unknown role \(role)\n".utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("bench --child \(role): \(error)\n".utf8))
            return 1
        }
    }

    /// The argument at `index`, or a message naming the role's usage.
    static func argument(_ arguments: [String], _ index: Int, _ usage: String) throws -> String {
        guard index < arguments.count else { throw BenchError("child role usage: \(usage)") }
        return arguments[index]
    }

    static func integer(_ arguments: [String], _ index: Int, _ usage: String) throws -> Int {
        guard let n = Int(try argument(arguments, index, usage)) else { throw BenchError("child role usage: \(usage)") }
        return n
    }

    static func kind(_ arguments: [String], _ index: Int, _ usage: String) throws -> SubjectKind {
        guard let kind = SubjectKind(rawValue: try argument(arguments, index, usage)) else {
            throw BenchError("child role usage: \(usage) (systems: \(SubjectKind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return kind
    }
}
