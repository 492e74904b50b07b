/// Every workload, in the order the table lists them.
enum WorkloadRegistry {
    static let all: [any Workload.Type] = [
        PointReadWorkload.self,
        ExpiringReadWorkload.self,
        EncryptedSuiteWorkload.self,
        DurableSetWorkload.self,
        BatchedSetWorkload.self,
        OpenAndReadWorkload.self,
        ConcurrentWritersWorkload.self,
        ChangeLatencyWorkload.self,
        StoredReadWorkload.self,
        SyncMergeWorkload.self,
        HubSyncWorkload.self,
        HubScaleWorkload.self,
        PolicyWorkload.self,
        GroupCommitWorkload.self,
        GroupCapWorkload.self,
        RemoteSyncWorkload.self,
        AsyncWriteWorkload.self,
        HubPartitionWorkload.self,
        HubFailoverWorkload.self,
        HubPoolerWorkload.self
    ]

    static var names: [String] { all.map { $0.name } }

    static func named(_ name: String) -> (any Workload.Type)? { all.first { $0.name == name } }
}
