/// The state a policy record holds: every part a key's merges need, whatever its policy, and the
/// policy of the write that made it (which decides how the state reads).
///
/// Each part is a join-semilattice on its own — a last-writer-wins base, per-replica registers, an
/// add-wins set — so merging two states part by part is commutative, associative and idempotent
/// whatever their policies, and no part is thrown away when a key's policy changes (a part the
/// current policy does not read waits, with what removed it remembered).
///
/// - `base`: the last whole-value write (a set, a removal, a reset, or the value a key had when its
///   policy changed). Last writer wins; it records the base its writer held, to tell an overwrite
///   the writer had seen from a concurrent one.
/// - `counters`: per replica, the running total of its increments and the hlc of the latest, and how
///   much of that total a whole-value write had seen (and so removed).
/// - `setSeen`, `members`: an add-wins set; each member keeps the tags (versions) of its additions
///   that are still alive, and `setSeen` says, per replica, up to which hlc this state has seen its
///   additions (a tag seen but absent was removed).
/// - `highs`, `lows`: per replica, its latest proposal to a max (min) key; proposals older than the
///   base are gone.
///
/// <!-- assume: let v1: Version = given(), v2: Version = given() -->
/// ```swift
/// var state = PolicyState(lifting: try Record(version: v1, value: .int(3)))
/// try state.increment(by: 1, at: v2, key: "launches")
/// try state.value()   // .int(4)
/// ```
package struct PolicyState: Hashable, Sendable {
    package struct Base: Hashable, Sendable {
        package var version: Version
        /// The value's encoding, or nil for a removal.
        package var value: [UInt8]?
        /// The base its writer held when it wrote this one.
        package var prior: Prior
        /// When the value expires (milliseconds since 1970): a plain expiring record lifted into a
        /// state keeps its expiry, so it reads as absent from then on whatever policy reads it.
        package var expiryMilliseconds: UInt64? = nil
    }

    /// What the writer of a base held before it: tells an overwrite it had seen from a concurrent one.
    package enum Prior: Hashable, Sendable, Comparable {
        /// Not known: the base is a plain record's value (plain records do not say what they replaced).
        case unknown
        /// No base: the key held nothing whole-valued.
        case none
        /// The base with this version.
        case base(Version)
    }

    package struct CounterEntry: Hashable, Sendable {
        package var replica: ReplicaID
        /// The hlc of the replica's latest increment.
        package var hlc: UInt64
        /// The sum of every increment the replica made.
        package var total: Int
        /// The hlc of the latest increment a whole-value write had seen (0: none), and the total then.
        package var removedHLC: UInt64
        package var removedTotal: Int

        /// What the replica adds to the value: its increments no whole-value write had seen.
        var amount: Int { hlc > removedHLC ? total &- removedTotal : 0 }
    }

    package struct Member: Hashable, Sendable {
        /// The member's value encoding.
        package var value: [UInt8]
        /// The versions of its additions still alive, ascending (at most one per replica).
        package var tags: [Version]
    }

    package struct Observed: Hashable, Sendable {
        package var replica: ReplicaID
        package var hlc: UInt64
    }

    package struct Proposal: Hashable, Sendable {
        package var replica: ReplicaID
        package var hlc: UInt64
        /// The proposed value's encoding.
        package var value: [UInt8]

        var version: Version { Version(hlc: hlc, replica: replica) }
    }

    /// The policy of the write that made this state: how it reads.
    package var policy: MergePolicy
    package var base: Base?
    /// Sorted by replica.
    package var counters: [CounterEntry] = []
    /// Sorted by replica.
    package var setSeen: [Observed] = []
    /// Sorted by value bytes.
    package var members: [Member] = []
    /// Sorted by replica.
    package var highs: [Proposal] = []
    /// Sorted by replica.
    package var lows: [Proposal] = []

    package init(policy: MergePolicy, base: Base? = nil) {
        self.policy = policy
        self.base = base
    }

    /// A plain record as a state: an lww state whose base is the record's value (or removal).
    package init(lifting record: Record) {
        self.init(
            policy: .lww,
            base: Base(version: record.version, value: record.valueBytes, prior: .unknown, expiryMilliseconds: record.expiryMilliseconds))
    }

    // MARK: - Reading

    /// What the state reads as under its policy: the value, or nil when the key holds nothing (an
    /// expiring base counts whether or not it has expired).
    package func value() throws(ValueDecodingError) -> Value? {
        try value(as: policy)
    }

    /// What the state reads as under its policy at `now` (milliseconds since 1970): an expired base
    /// counts as none.
    package func value(at now: UInt64) throws(ValueDecodingError) -> Value? {
        try value(as: policy, at: now)
    }

    /// What the state would read as under `policy` (at `now`, when given: an expired base counts as none).
    package func value(as policy: MergePolicy, at now: UInt64? = nil) throws(ValueDecodingError) -> Value? {
        var baseValue = try base?.value.map { bytes throws(ValueDecodingError) in try ValueCodec.decode(bytes) }
        if let now, let expiry = base?.expiryMilliseconds, now >= expiry { baseValue = nil }
        switch policy {
        case .lww:
            return baseValue
        case .counter:
            let live = counters.filter { $0.hlc > $0.removedHLC }
            var sum = 0
            for entry in live { sum = sum &+ entry.amount }
            switch baseValue {
            case .int(let start)?: return .int(start &+ sum)
            case nil: return live.isEmpty ? nil : .int(sum)
            case let other?: return other // a non-integer written over a counter reads as written
            }
        case .max, .min:
            var best = baseValue
            for proposal in policy == .max ? highs : lows {
                let candidate = try ValueCodec.decode(proposal.value)
                guard let current = best else {
                    best = candidate
                    continue
                }
                let order = ValueOrder.compare(candidate, current)
                if policy == .max ? order > 0 : order < 0 { best = candidate }
            }
            return best
        case .set:
            var items: [Value] = []
            for member in members { items.append(try ValueCodec.decode(member.value)) }
            items += Self.items(of: baseValue)
            guard !items.isEmpty || baseValue != nil else { return nil }
            return .array(Self.sortedUnique(items))
        }
    }

    /// The members a base value contributes to a set: an array's items, or the value itself.
    static func items(of value: Value?) -> [Value] {
        switch value {
        case nil: []
        case .array(let items)?: items
        case let other?: [other]
        }
    }

    /// `values` in `ValueOrder`, each once.
    static func sortedUnique(_ values: [Value]) -> [Value] {
        var out: [Value] = []
        for value in values.sorted(by: { ValueOrder.compare($0, $1) < 0 }) where out.last.map({ ValueOrder.compare($0, value) != 0 }) ?? true {
            out.append(value)
        }
        return out
    }

    /// The base as a plain record (a value or a tombstone), as conflicts show it.
    package var baseRecord: Record? {
        base.map { Record(version: $0.version, valueBytes: $0.value, expiryMilliseconds: $0.expiryMilliseconds) }
    }
}
