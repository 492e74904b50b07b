extension PolicyState {
    /// The join of two states, part by part (commutative, associative, idempotent). `policy` is the
    /// policy of the result: the merge rule passes the policy of the record with the greater version.
    ///
    /// <!-- assume:
    /// let local = PolicyState(lifting: try Record(version: given(), value: .int(1)))
    /// let remote = local, newer = try Record(version: given(), value: .int(2))
    /// -->
    /// ```swift
    /// let merged = PolicyState.join(local, remote, policy: newer.policy)
    /// ```
    package static func join(_ a: PolicyState, _ b: PolicyState, policy: MergePolicy) -> PolicyState {
        var out = PolicyState(policy: policy, base: joinBase(a.base, b.base))
        out.counters = joinSorted(a.counters, b.counters, by: \.replica) { x, y in
            var entry = x
            if (y.hlc, y.total) > (x.hlc, x.total) { (entry.hlc, entry.total) = (y.hlc, y.total) }
            if (y.removedHLC, y.removedTotal) > (x.removedHLC, x.removedTotal) { (entry.removedHLC, entry.removedTotal) = (y.removedHLC, y.removedTotal) }
            return entry
        }
        out.setSeen = joinSorted(a.setSeen, b.setSeen, by: \.replica) { x, y in x.hlc >= y.hlc ? x : y }
        out.members = joinMembers(a, b)
        out.highs = joinSorted(a.highs, b.highs, by: \.replica, newerProposal)
        out.lows = joinSorted(a.lows, b.lows, by: \.replica, newerProposal)
        out.pruneProposals()
        return out
    }

    /// The greater base: by version, then a value over a removal, then value bytes, then what it
    /// replaced, then its expiry (no expiry first). Expiry never decides between two writes: distinct
    /// writes have distinct versions, so only a damaged or forged pair gets that far.
    static func joinBase(_ a: Base?, _ b: Base?) -> Base? {
        guard let a else { return b }
        guard let b else { return a }
        return baseOrder(a, b) ? b : a
    }

    /// Whether base `a` loses to base `b` (a total order: equal only when identical).
    package static func baseOrder(_ a: Base, _ b: Base) -> Bool {
        if a.version != b.version { return a.version < b.version }
        switch (a.value, b.value) {
        case (nil, _?): return true
        case (_?, nil): return false
        case (let x?, let y?) where x != y: return x.lexicographicallyPrecedes(y)
        default:
            if a.prior != b.prior { return a.prior < b.prior }
            return (a.expiryMilliseconds ?? 0, a.expiryMilliseconds == nil ? 0 : 1) < (b.expiryMilliseconds ?? 0, b.expiryMilliseconds == nil ? 0 : 1)
        }
    }

    private static func newerProposal(_ x: Proposal, _ y: Proposal) -> Proposal {
        if x.hlc != y.hlc { return x.hlc > y.hlc ? x : y }
        return x.value.lexicographicallyPrecedes(y.value) ? y : x
    }

    /// The add-wins set's join: a tag survives when both states hold it, or when one holds it and
    /// the other has not seen it (a tag seen and absent was removed).
    private static func joinMembers(_ a: PolicyState, _ b: PolicyState) -> [Member] {
        let seenA = Dictionary(uniqueKeysWithValues: a.setSeen.map { ($0.replica, $0.hlc) })
        let seenB = Dictionary(uniqueKeysWithValues: b.setSeen.map { ($0.replica, $0.hlc) })
        func unseen(_ tag: Version, by seen: [ReplicaID: UInt64]) -> Bool { tag.hlc > seen[tag.replica, default: 0] }
        var out: [Member] = []
        var i = 0
        var j = 0
        func take(_ value: [UInt8], _ tagsA: [Version], _ tagsB: [Version]) {
            let setA = Set(tagsA)
            let setB = Set(tagsB)
            var tags = tagsA.filter { setB.contains($0) || unseen($0, by: seenB) }
            tags += tagsB.filter { !setA.contains($0) && unseen($0, by: seenA) }
            if !tags.isEmpty { out.append(Member(value: value, tags: tags.sorted())) }
        }
        while i < a.members.count || j < b.members.count {
            if j == b.members.count || (i < a.members.count && a.members[i].value.lexicographicallyPrecedes(b.members[j].value)) {
                take(a.members[i].value, a.members[i].tags, [])
                i += 1
            } else if i == a.members.count || b.members[j].value.lexicographicallyPrecedes(a.members[i].value) {
                take(b.members[j].value, [], b.members[j].tags)
                j += 1
            } else {
                take(a.members[i].value, a.members[i].tags, b.members[j].tags)
                i += 1
                j += 1
            }
        }
        return out
    }

    /// Drops max/min proposals older than the base: a whole-value write took them back.
    mutating func pruneProposals() {
        guard let base else { return }
        highs.removeAll { $0.version < base.version }
        lows.removeAll { $0.version < base.version }
    }

    /// Merges two lists sorted by `key`, combining entries with equal keys.
    private static func joinSorted<T>(_ a: [T], _ b: [T], by key: KeyPath<T, ReplicaID>, _ combine: (T, T) -> T) -> [T] {
        var out: [T] = []
        out.reserveCapacity(max(a.count, b.count))
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i][keyPath: key] < b[j][keyPath: key]) {
                out.append(a[i])
                i += 1
            } else if i == a.count || b[j][keyPath: key] < a[i][keyPath: key] {
                out.append(b[j])
                j += 1
            } else {
                out.append(combine(a[i], b[j]))
                i += 1
                j += 1
            }
        }
        return out
    }
}
