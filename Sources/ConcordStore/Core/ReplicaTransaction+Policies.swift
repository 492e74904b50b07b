/// The write core's policy-aware operations: increments, read-modify-write updates, declarations,
/// and what a `set` means under each policy.
extension ReplicaTransaction {
    // MARK: - Increments and updates

    /// Adds `amount` to the integer under `key`: on a counter, this replica's contribution (every
    /// replica's add up when they sync); on an lww key, a read-modify-write that is atomic in this
    /// replica and last-writer-wins across replicas; on a max or min key, a proposal of the sum.
    /// An absent key counts as `start` (the registered default), else 0.
    ///
    /// - Returns: The key's value after the increment.
    /// - Throws: ``ConcordError`` `.typeMismatch` when the key holds something else than an `Int`;
    ///   `.policyMismatch` on a set; `.unsupportedValue` when the sum overflows.
    package func increment(suite: String, key: String, by amount: Int, start: Value?) throws -> Int {
        try checkWritable(suite: suite)
        try Names.validateNewKey(key, inSuite: suite)
        let existing = try existingRow(suite: suite, key: key)
        let policy = try resolvedPolicy(suite: suite, key: key, existing: existing)
        func sum(_ current: Value?) throws -> (Int, startsFromDefault: Bool) {
            let from = current ?? start ?? .int(0)
            guard case .int(let base) = from else {
                throw ConcordError.typeMismatch(suite: suite, key: key, stored: from.typeName, requested: "Int")
            }
            let (total, overflow) = base.addingReportingOverflow(amount)
            guard !overflow else { throw ConcordError.unsupportedValue(key: key, reason: "incrementing \(base) by \(amount) overflows Int") }
            return (total, current == nil && start != nil)
        }
        if policy == .set {
            throw ConcordError.policyMismatch(
                suite: suite, key: key, policy: .set,
                reason: "an add-wins set cannot be incremented; add or remove members instead")
        }
        if policy == .lww, existing?.isPolicy != true {
            let now = wallClockMilliseconds
            let current = try existing.flatMap { try rowReader(suite: suite, key: key).value(of: record(of: $0, suite: suite, key: key), now: { now }) }
            let (total, _) = try sum(current)
            try writePlain(suite: suite, key: key, valueBytes: try encodeChecked(.int(total), key: key), existing: existing)
            return total
        }
        var result = 0
        try writePolicy(suite: suite, key: key, existing: existing, policy: policy) { state, version in
            let current = try state.value(as: policy, at: wallClockMilliseconds)
            let (total, fromDefault) = try sum(current)
            switch policy {
            case .counter:
                if fromDefault, let start { state.replaceWhole(with: try encodeChecked(start, key: key), at: version) }
                try state.increment(by: amount, at: version, key: key)
                result = total
                return true
            case .max, .min:
                // The value only moves one way: an increment that would move it back changes nothing.
                guard current == nil || (policy == .max ? amount > 0 : amount < 0) else {
                    if case .int(let held)? = current { result = held }
                    return false
                }
                state.propose(try encodeChecked(.int(total), key: key), at: version, high: policy == .max)
                result = total
                return true
            default:
                state.replaceWhole(with: try encodeChecked(.int(total), key: key), at: version)
                result = total
                return true
            }
        }
        return result
    }

    /// Writes the result of a read-modify-write of `key` (nil: remove it). Under a policy the change
    /// from the stored value is what merges — a counter's difference as an increment, a set's added
    /// and removed members, a max or min key's new proposal — so concurrent updates on other replicas
    /// combine with it; on an lww key it is a set.
    ///
    /// - Returns: Whether anything was written.
    @discardableResult
    package func update(suite: String, key: String, to new: Value?) throws -> Bool {
        try checkWritable(suite: suite)
        try Names.validateKey(key, inSuite: suite)
        if new != nil { try Names.validateNewKey(key, inSuite: suite) }
        let existing = try existingRow(suite: suite, key: key)
        let policy = try resolvedPolicy(suite: suite, key: key, existing: existing)
        guard let new else { return try remove(suite: suite, key: key) != nil }
        let bytes = try encodeChecked(new, key: key)
        if policy == .lww, existing?.isPolicy != true {
            _ = try writePlain(suite: suite, key: key, valueBytes: bytes, existing: existing)
            return true
        }
        return try writePolicy(suite: suite, key: key, existing: existing, policy: policy) { state, version in
            let current = try state.value(as: policy, at: wallClockMilliseconds)
            switch (policy, current, new) {
            case (.counter, .int(let was)?, .int(let now)):
                let (delta, overflow) = now.subtractingReportingOverflow(was)
                guard !overflow else { throw ConcordError.unsupportedValue(key: key, reason: "changing \(was) to \(now) overflows Int") }
                guard delta != 0 else { return false }
                try state.increment(by: delta, at: version, key: key)
                return true
            case (.set, _, _):
                let wanted = try self.members(of: new, suite: suite, key: key)
                try state.absorbBaseIntoMembers(at: version)
                let held = Set(state.members.map(\.value))
                let added = wanted.filter { !held.contains($0) }
                let removed = held.subtracting(wanted)
                if !added.isEmpty { state.add(added, at: version) }
                if !removed.isEmpty { state.remove(removed) }
                if state.members.isEmpty, state.base?.value == nil {
                    state.replaceBaseOnly(with: PolicyState.emptyArray, at: version)
                    return true
                }
                return !added.isEmpty || !removed.isEmpty || current == nil
            default:
                return try self.applySet(new, bytes: bytes, to: &state, at: version, policy: policy, suite: suite, key: key)
            }
        } != nil
    }

    /// What `set` does to a policy state: replace the value (lww, counter), propose it (max, min),
    /// or make it the members (set). Returns whether the state changed.
    func applySet(
        _ value: Value, bytes: [UInt8], to state: inout PolicyState, at version: Version,
        policy: MergePolicy, suite: String, key: String
    ) throws -> Bool {
        switch policy {
        case .lww:
            state.replaceWhole(with: bytes, at: version)
        case .counter:
            guard case .int = value else {
                throw ConcordError.policyMismatch(suite: suite, key: key, policy: policy, reason: "a counter holds an Int, not a \(value.typeName)")
            }
            state.replaceWhole(with: bytes, at: version)
        case .max, .min:
            guard ValueOrder.isComparable(value) else {
                throw ConcordError.policyMismatch(
                    suite: suite, key: key, policy: policy,
                    reason: "it keeps the \(policy == .max ? "greatest" : "least") of comparable values (Int, Double, String or Date), not a \(value.typeName)")
            }
            if let current = try state.value(as: policy, at: wallClockMilliseconds) {
                guard current.kind == value.kind else {
                    throw ConcordError.policyMismatch(
                        suite: suite, key: key, policy: policy,
                        reason: "it holds a \(current.typeName), so it compares only with a \(current.typeName), not a \(value.typeName)")
                }
                let order = ValueOrder.compare(value, current)
                guard policy == .max ? order > 0 : order < 0 else { return false } // the value only moves one way
            }
            state.propose(bytes, at: version, high: policy == .max)
        case .set:
            let wanted = try members(of: value, suite: suite, key: key)
            state.replaceWhole(with: PolicyState.emptyArray, at: version)
            state.add(wanted, at: version)
        }
        return true
    }

    /// The encoded members of a value given to a set key: an array of scalars, each once.
    func members(of value: Value, suite: String, key: String) throws -> [[UInt8]] {
        guard case .array(let items) = value else {
            throw ConcordError.policyMismatch(suite: suite, key: key, policy: .set, reason: "a set takes an array of members, not a \(value.typeName)")
        }
        var out: [[UInt8]] = []
        var seen = Set<[UInt8]>()
        for item in items {
            switch item {
            case .array, .dictionary:
                throw ConcordError.policyMismatch(suite: suite, key: key, policy: .set, reason: "set members are scalars, not a \(item.typeName)")
            default:
                let bytes = try ValueCodec.encode(item, key: key)
                if seen.insert(bytes).inserted { out.append(bytes) }
            }
        }
        return out
    }

    // MARK: - Declarations and schema versions

    /// The policy a local write of `key` follows: its declaration (or its longest declared prefix's),
    /// else the policy its record reads by, else lww. In an encrypted suite a key is declared under
    /// its name's row key.
    func resolvedPolicy(suite: String, key: String, existing: ExistingRow?) throws -> MergePolicy {
        if suite != ReservedSuite.name {
            if declarations?.suite != suite {
                declarations = try policies(suite: suite)
            }
            if let declared = declarations {
                if declared.hasKeys {
                    let reservedKey = ReservedSuite.keyDeclaration(suite: suite, key: try sealing(suite: suite)?.rowKey(for: key) ?? key)
                    if let record = try record(suite: ReservedSuite.name, key: reservedKey),
                        let declaration = PolicyDeclaration(reservedKey: reservedKey, record: record)
                    {
                        return declaration.policy
                    }
                }
                if !declared.prefixes.isEmpty, let prefix = declared.prefixes.first(where: { key.hasPrefix($0.prefix) }) { return prefix.policy }
            }
        }
        if let existing, existing.isPolicy { return try record(of: existing, suite: suite, key: key).policy }
        return .lww
    }

    /// Declares `policy` for `key` of `suite` (or, with `isPrefix`, for every key starting with it);
    /// nil removes the declaration. A declaration already in place writes nothing. In an encrypted
    /// suite a key is declared under its name's row key (the declaration syncs in the clear), and a
    /// prefix cannot be declared (it would show the start of the names it covers).
    ///
    /// - Returns: Whether anything was written.
    @discardableResult
    package func declare(_ policy: MergePolicy?, suite: String, key: String, isPrefix: Bool) throws -> Bool {
        try Names.validateSuite(suite)
        guard suite != ReservedSuite.name else { throw ConcordError.reservedSuite(suite) }
        if !isPrefix || !key.isEmpty { try Names.validateNewKey(key) }
        let sealing = try sealing(suite: suite)
        if let policy, isPrefix, sealing != nil { throw ConcordError.encryptedPrefixPolicy(suite: suite, prefix: key, policy: policy) }
        let reservedKey =
            isPrefix
            ? ReservedSuite.prefixDeclaration(suite: suite, prefix: key) : ReservedSuite.keyDeclaration(suite: suite, key: sealing?.rowKey(for: key) ?? key)
        let existing = try existingRow(suite: ReservedSuite.name, key: reservedKey)
        let current = try existing.flatMap { try record(of: $0, suite: ReservedSuite.name, key: reservedKey).value() }
        guard current != policy.map({ Value.string($0.rawValue) }) else { return false }
        declarations = nil
        _ = try writePlain(
            suite: ReservedSuite.name, key: reservedKey,
            valueBytes: try policy.map { try ValueCodec.encode(.string($0.rawValue)) }, existing: existing)
        return true
    }

    /// Records that this replica holds `suite` at schema `version` (a max key: it never goes back).
    package func stampSchema(_ version: Int, suite: String) throws {
        let key = ReservedSuite.schemaKey(suite: suite)
        let existing = try existingRow(suite: ReservedSuite.name, key: key)
        let bytes = try ValueCodec.encode(.int(version))
        try writePolicy(suite: ReservedSuite.name, key: key, existing: existing, policy: .max) { state, at in
            if case .int(let stored)? = try state.value(as: .max), stored >= version { return false }
            state.propose(bytes, at: at, high: true)
            return true
        }
        writableSuite = nil
    }
}
