/// One change of a remote replica's journal, as a batch carries it.
///
/// ```swift
/// let entry = RemoteEntry(seq: 42, suite: "prefs", key: "theme", record: record)
/// ```
public struct RemoteEntry: Hashable, Sendable {
    /// The entry's seq in the source replica's journal.
    public let seq: UInt64
    public let suite: String
    public let key: String
    public let record: Record

    public init(seq: UInt64, suite: String, key: String, record: Record) {
        self.seq = seq
        self.suite = suite
        self.key = key
        self.record = record
    }
}

/// A batch of one replica's journal entries for another to merge: the entries after `fromSeq`
/// through `toSeq` of the selected suites (each key at most once), and what the source had merged
/// of others when the batch was read. Applied in one write transaction (`BatchApplier`).
///
/// ```swift
/// let delta = try DeltaReader.read(from: laptop, for: phone.replicaID, alreadyMerged: knowledge)
/// let report = try BatchApplier(store: phone).apply(delta.batch)
/// ```
public struct RemoteBatch: Hashable, Sendable {
    /// The replica whose journal the entries come from.
    public let source: ReplicaID
    public let selection: SyncSelection
    /// The entries follow this seq of the source's journal …
    public let fromSeq: UInt64
    /// … through this one (the source's last seq when the batch was read).
    public let toSeq: UInt64
    /// Oldest first.
    public let entries: [RemoteEntry]
    /// The source's cursors when the batch was read (`PeerKnowledge(received:)`).
    public let knowledge: PeerKnowledge

    public init(source: ReplicaID, selection: SyncSelection, fromSeq: UInt64, toSeq: UInt64, entries: [RemoteEntry], knowledge: PeerKnowledge) {
        self.source = source
        self.selection = selection
        self.fromSeq = fromSeq
        self.toSeq = toSeq
        self.entries = entries
        self.knowledge = knowledge
    }
}
