extension Store {
    /// Gives this replica a human name, shown beside its id wherever Concord reports replicas
    /// (`Suite.explain`, `sync-tool why`, `conflicts`, `info`). The name is a record of the reserved
    /// suite, so it syncs to every peer like any other change; `nil` removes it.
    ///
    /// ```swift
    /// try store.setName("Ada's laptop")
    /// let name = try store.name(of: store.replicaID)   // "Ada's laptop"
    /// ```
    ///
    /// - Parameter name: 1–64 bytes of UTF-8 without control characters, or nil.
    /// - Throws: `StoreError.invalidReplicaName` (nothing is written), or a storage error.
    public func setName(_ name: String?) throws {
        try write { w in _ = try w.nameReplica(name) }
    }

    /// Gives this replica a human name (nil removes it) without blocking the cooperative pool; see
    /// the synchronous `setName(_:)`.
    ///
    /// ```swift
    /// try await store.setName("Ada's laptop")
    /// ```
    public func setName(_ name: String?) async throws {
        try await thread.run { [self] in try setName(name) }
    }

    /// The name `replica` gave itself, as this replica knows it (nil when none has arrived).
    ///
    /// ```swift
    /// print(try store.name(of: conflict.loser.writer) ?? "unnamed")
    /// ```
    public func name(of replica: ReplicaID) throws -> String? {
        try read { r in try r.replicaName(of: replica) }
    }

    /// Every replica name this replica holds, by replica id.
    ///
    /// ```swift
    /// for (id, name) in try store.replicaNames() { print(id, name) }
    /// ```
    public func replicaNames() throws -> [ReplicaID: String] {
        try read { r in try r.replicaNames() }
    }
}
