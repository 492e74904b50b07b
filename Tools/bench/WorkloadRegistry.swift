/// Every workload, in the order the table lists them. Workloads 7 (`@Stored` read when unchanged)
/// and 8 (sync merges) join here once the wrappers and sync layers land.
enum WorkloadRegistry {
    static let all: [any Workload.Type] = [
        PointReadWorkload.self,
        DurableSetWorkload.self,
        BatchedSetWorkload.self,
        OpenAndReadWorkload.self,
        ConcurrentWritersWorkload.self,
        ChangeLatencyWorkload.self,
    ]

    static var names: [String] { all.map { $0.name } }

    static func named(_ name: String) -> (any Workload.Type)? { all.first { $0.name == name } }
}
