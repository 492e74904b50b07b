/// One change of a remote replica's journal, as a batch carries it.
///
/// <!-- assume: let record = try Record(version: given(), value: .string("dark")) -->
/// ```swift
/// let entry = RemoteEntry(seq: 42, suite: "prefs", key: "theme", record: record)
/// ```
package struct RemoteEntry: Hashable, Sendable {
    /// The entry's seq in the source replica's journal.
    package let seq: UInt64
    package let suite: String
    package let key: String
    package let record: Record

    package init(seq: UInt64, suite: String, key: String, record: Record) {
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
/// <!-- assume: let knowledge = PeerKnowledge(received: try phone.peerCursors()) -->
/// ```swift
/// let delta = try DeltaReader.read(from: laptop, for: phone.replicaID, alreadyMerged: knowledge)
/// let report = try BatchApplier(store: phone).apply(delta.batch)
/// ```
package struct RemoteBatch: Hashable, Sendable {
    /// The replica whose journal the entries come from.
    package let source: ReplicaID
    package let selection: SyncSelection
    /// The entries follow this seq of the source's journal …
    package let fromSeq: UInt64
    /// … through this one (the source's last seq when the batch was read).
    package let toSeq: UInt64
    /// Oldest first.
    package let entries: [RemoteEntry]
    /// The source's cursors when the batch was read (`PeerKnowledge(received:)`).
    package let knowledge: PeerKnowledge
    /// The source's history mark covering `toSeq`, committed before the batch is sent: the receiver
    /// binds its cursor to it (nil: a batch that proves nothing, such as a bundle of an older format).
    package let mark: HistoryMark?

    package init(
        source: ReplicaID, selection: SyncSelection, fromSeq: UInt64, toSeq: UInt64, entries: [RemoteEntry], knowledge: PeerKnowledge,
        mark: HistoryMark? = nil
    ) {
        self.source = source
        self.selection = selection
        self.fromSeq = fromSeq
        self.toSeq = toSeq
        self.entries = entries
        self.knowledge = knowledge
        self.mark = mark
    }
}
