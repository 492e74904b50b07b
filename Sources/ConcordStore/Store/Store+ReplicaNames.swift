extension Store {
    /// Gives this replica a human name, shown beside its id wherever Concord reports replicas
    /// (``Suite/explain(_:)``, `sync-tool why`, `conflicts`, `info`). The name is a record of the reserved
    /// suite, so it syncs to every peer like any other change; `nil` removes it.
    ///
    /// ```swift
    /// try store.setName("Ada's laptop")
    /// let name = try store.name(of: store.replicaID)   // "Ada's laptop"
    /// ```
    ///
    /// - Parameter name: 1–64 bytes of UTF-8 without control characters, or nil.
    /// - Throws: ``ConcordError`` `.invalidReplicaName` (nothing is written), or a storage error.
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
    /// <!-- assume: let conflict = try store.conflicts()[0] -->
    /// ```swift
    /// print(try store.name(of: conflict.loser.version.replica) ?? "unnamed")
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

extension ReplicaTransaction {
    /// Notes, in this replica's `meta` alone (it never syncs), that `peer` is the replica of the hub
    /// account `account`: status reports call that peer the hub. Writes nothing when already noted.
    package func noteHubPeer(_ peer: ReplicaID, account: String) throws {
        let key = StoreLayout.hubPeerPrefix + Array(peer.description.utf8)
        let value = Array(account.utf8)
        guard try txn.get(layout.meta, key) != value else { return }
        try txn.put(layout.meta, key, value)
    }
}

extension ReplicaRows {
    /// The hub accounts' replicas this replica synced with, by replica id, each with its account's name.
    package func hubPeers() throws -> [ReplicaID: String] {
        var out: [ReplicaID: String] = [:]
        try txn.scan(layout.meta, from: StoreLayout.hubPeerPrefix) { key, value in
            guard key.starts(with: StoreLayout.hubPeerPrefix) else { return false }
            if let id = ReplicaID(hex: String(decoding: key.dropFirst(StoreLayout.hubPeerPrefix.count), as: UTF8.self)) {
                out[id] = String(decoding: value, as: UTF8.self)
            }
            return true
        }
        return out
    }
}
