/// What one replica (or the last whole-value write, the base) contributes to a counter, a set or a
/// max/min key's value: the parts ``Suite/explain(_:)`` lists.
package struct PolicyPart: Hashable, Sendable {
    /// The replica that contributed it (for the base: the replica that wrote it).
    package let replica: ReplicaID
    /// Whether this is the base: the last whole-value write the other parts are added to.
    package let isBase: Bool
    /// The contribution: a counter's increments no whole-value write had seen (an `Int`), a set's
    /// live members this replica added (an array), a max or min proposal, or the base's value
    /// (nil for a removal).
    package let value: Value?
    /// The hlc of the replica's latest contribution (for the base: its version's).
    package let hlc: UInt64
}

extension PolicyState {
    /// What each replica contributes to the value under the state's policy (nothing for `lww`):
    /// the base first (when there is one), then each replica in id order.
    package func parts() throws(ValueDecodingError) -> [PolicyPart] {
        guard policy != .lww else { return [] }
        var out: [PolicyPart] = []
        if let base {
            let value = try base.value.map { bytes throws(ValueDecodingError) in try ValueCodec.decode(bytes) }
            out.append(PolicyPart(replica: base.version.replica, isBase: true, value: value, hlc: base.version.hlc))
        }
        switch policy {
        case .lww:
            break
        case .counter:
            for entry in counters where entry.hlc > entry.removedHLC {
                out.append(PolicyPart(replica: entry.replica, isBase: false, value: .int(entry.amount), hlc: entry.hlc))
            }
        case .set:
            var byReplica: [ReplicaID: (values: [Value], hlc: UInt64)] = [:]
            for member in members {
                let value = try ValueCodec.decode(member.value)
                for tag in member.tags {
                    byReplica[tag.replica, default: ([], 0)].values.append(value)
                    byReplica[tag.replica]!.hlc = max(byReplica[tag.replica]!.hlc, tag.hlc)
                }
            }
            for replica in byReplica.keys.sorted() {
                let (values, hlc) = byReplica[replica]!
                out.append(PolicyPart(replica: replica, isBase: false, value: .array(Self.sortedUnique(values)), hlc: hlc))
            }
        case .max, .min:
            for proposal in policy == .max ? highs : lows {
                out.append(PolicyPart(replica: proposal.replica, isBase: false, value: try ValueCodec.decode(proposal.value), hlc: proposal.hlc))
            }
        }
        return out
    }
}
