/// The local writes on a state. Each runs at the fresh version of one write (`ReplicaTransaction`
/// makes it) and leaves the state's policy as the caller sets it.
extension PolicyState {
    /// A whole-value write — a set, a removal, a reset, or the value carried over when the policy
    /// changes: it replaces the base and takes back what this state holds of the combining parts
    /// (counter increments are remembered as removed, set members are dropped — this state has seen
    /// their tags — and max/min proposals older than it go).
    package mutating func replaceWhole(with value: [UInt8]?, at version: Version) {
        base = Base(version: version, value: value, prior: prior(writingAt: version))
        for i in counters.indices { (counters[i].removedHLC, counters[i].removedTotal) = (counters[i].hlc, counters[i].total) }
        members = []
        pruneProposals()
    }

    /// Adds `amount` (negative to subtract) to this replica's contribution.
    ///
    /// - Throws: ``ConcordError`` `.unsupportedValue` when the replica's running total overflows `Int`.
    package mutating func increment(by amount: Int, at version: Version, key: String) throws {
        if let i = counters.firstIndex(where: { $0.replica == version.replica }) {
            let (total, overflow) = counters[i].total.addingReportingOverflow(amount)
            guard !overflow else { throw ConcordError.unsupportedValue(key: key, reason: "this replica's increments of the counter overflow Int") }
            counters[i].total = total
            counters[i].hlc = version.hlc
        } else {
            let entry = CounterEntry(replica: version.replica, hlc: version.hlc, total: amount, removedHLC: 0, removedTotal: 0)
            counters.insert(entry, at: counters.firstIndex(where: { version.replica < $0.replica }) ?? counters.count)
        }
    }

    /// Records this replica's proposal to a max (`high`) or min key.
    package mutating func propose(_ value: [UInt8], at version: Version, high: Bool) {
        let proposal = Proposal(replica: version.replica, hlc: version.hlc, value: value)
        func put(_ list: inout [Proposal]) {
            if let i = list.firstIndex(where: { $0.replica == version.replica }) {
                list[i] = proposal
                return
            }
            list.insert(proposal, at: list.firstIndex(where: { version.replica < $0.replica }) ?? list.count)
        }
        if high { put(&highs) } else { put(&lows) }
    }

    /// Adds members to the set, each tagged with `version` (replacing this replica's older tag of it).
    package mutating func add(_ values: [[UInt8]], at version: Version) {
        for value in values {
            if let i = members.firstIndex(where: { $0.value == value }) {
                members[i].tags.removeAll { $0.replica == version.replica }
                members[i].tags.append(version)
                members[i].tags.sort()
            } else {
                members.insert(
                    Member(value: value, tags: [version]),
                    at: members.firstIndex(where: { value.lexicographicallyPrecedes($0.value) }) ?? members.count)
            }
        }
        if let i = setSeen.firstIndex(where: { $0.replica == version.replica }) {
            setSeen[i].hlc = max(setSeen[i].hlc, version.hlc)
        } else {
            setSeen.insert(
                Observed(replica: version.replica, hlc: version.hlc),
                at: setSeen.firstIndex(where: { version.replica < $0.replica }) ?? setSeen.count)
        }
    }

    /// Removes members: every addition of them this state holds (so every one its writer has seen).
    package mutating func remove(_ values: Set<[UInt8]>) {
        members.removeAll { values.contains($0.value) }
    }

    /// Turns a set's base value into members tagged `version` (a set's own writes keep its members as
    /// tagged additions, so removing one never rewrites the others); the base becomes an empty array.
    package mutating func absorbBaseIntoMembers(at version: Version) throws(ValueDecodingError) {
        guard let bytes = base?.value else { return }
        let items = Self.items(of: try ValueCodec.decode(bytes))
        guard !items.isEmpty else { return }
        replaceBaseOnly(with: Self.emptyArray, at: version)
        add(items.compactMap { try? ValueCodec.encode($0) }, at: version)
    }

    /// Replaces the base and nothing else (a set's base: present or removed).
    mutating func replaceBaseOnly(with value: [UInt8]?, at version: Version) {
        base = Base(version: version, value: value, prior: prior(writingAt: version))
        pruneProposals()
    }

    /// What a base written at `version` replaces: the base held, unless that one is this same write's
    /// (a policy change carrying the value over, then the write itself).
    private func prior(writingAt version: Version) -> Prior {
        guard let base else { return .none }
        return base.version == version ? base.prior : .base(base.version)
    }

    /// The encoding of an empty array: a set's base when it holds nothing but exists.
    package static let emptyArray: [UInt8] = (try? ValueCodec.encode(.array([]))) ?? []
}
