/// The merge rule (see the architecture document, "Merge" and "Beyond last-writer-wins") as pure
/// functions. Every merge site uses it: a replica merging a batch, a dry run, and a hub merging what
/// devices push.
///
/// - Two plain records: the one with the greater version wins; a tombstone is a record like any other.
/// - A policy record (a counter, max, min or set, or a key that once was one) with anything: their
///   states join part by part (`PolicyState.join`), and the result reads by the policy of the record
///   with the greater version. A plain record joins as a state whose base is its value, so an lww write
///   newer than everything in a counter replaces the counter's value for everyone (taking back the
///   increments its writer had seen), and a key with lww history that becomes a counter keeps that
///   value as the counter's base.
///
/// Commutative, associative and idempotent (`MergeAlgebraTests`), so replicas that exchanged the same
/// records hold byte-identical records whatever the order. Two distinct writes never carry the same
/// version; should two different plain records with one version ever meet (a damaged or forged input),
/// the order still decides deterministically: a tombstone before a value, then the value's encoded bytes.
///
/// <!-- assume: let local = try Record(version: given(), value: .string("dark")), remote = try Record(version: given(), value: .string("light")) -->
/// ```swift
/// let kept = RecordMerge.merge(local, remote)
/// if let lost = RecordMerge.overwrite(local, remote) { print("lost:", lost.loser) }
/// ```
package enum RecordMerge {
    /// The record that merging `a` and `b` leaves: one of them (plain records, or one that already
    /// holds the other), or their combination.
    package static func merge(_ a: Record, _ b: Record) -> Record {
        if a.isPlain && b.isPlain { return plainOrder(a, b) ? b : a }
        let newer = newerPolicy(a, b) ? b : a
        let state = PolicyState.join(a.state ?? PolicyState(lifting: a), b.state ?? PolicyState(lifting: b), policy: newer.policy)
        return Record(version: max(a.version, b.version), state: state)
    }

    /// Merges two optional records (absent loses to anything).
    package static func merge(_ a: Record?, _ b: Record?) -> Record? {
        switch (a, b) {
        case (let a?, let b?): return merge(a, b)
        case (let a?, nil): return a
        case (nil, let b): return b
        }
    }

    /// Merges two replica states key by key.
    package static func merge(_ a: [SuiteKey: Record], _ b: [SuiteKey: Record]) -> [SuiteKey: Record] {
        var out = a
        for (key, record) in b { out[key] = merge(out[key], record) }
        return out
    }

    /// A write that merging `a` and `b` discards: two different whole values (plain records, or the
    /// bases of policy records: a set, a removal, a reset) of which one loses by last-writer-wins.
    /// Concurrent increments, additions and proposals combine, so they are never overwrites.
    package struct Overwrite: Equatable, Sendable {
        /// The winning and losing whole values, as plain records (values or tombstones).
        package let winner: Record
        package let loser: Record
        /// Whether the winner's writer had not seen the loser: true when its record says so (a policy
        /// base records the base it replaced), nil when only the replicas' cursors can tell.
        package let concurrent: Bool?
    }

    /// The write merging `a` and `b` discards, or nil when nothing is lost (equal records, combined
    /// changes, or a base whose writer had already replaced the loser).
    package static func overwrite(_ a: Record, _ b: Record) -> Overwrite? {
        if a.isPlain && b.isPlain {
            guard a != b else { return nil }
            let aLoses = plainOrder(a, b)
            return Overwrite(winner: aLoses ? b : a, loser: aLoses ? a : b, concurrent: nil)
        }
        guard let baseA = (a.state ?? PolicyState(lifting: a)).base, let baseB = (b.state ?? PolicyState(lifting: b)).base,
            baseA != baseB
        else { return nil }
        let (winner, loser) = PolicyState.baseOrder(baseA, baseB) ? (baseB, baseA) : (baseA, baseB)
        let concurrent: Bool?
        switch winner.prior {
        case .unknown: concurrent = nil
        case .none: concurrent = true
        case .base(let replaced):
            guard replaced < loser.version else { return nil } // its writer had replaced the loser, or a newer base
            concurrent = true
        }
        return Overwrite(
            winner: Record(version: winner.version, valueBytes: winner.value),
            loser: Record(version: loser.version, valueBytes: loser.value), concurrent: concurrent)
    }

    /// Whether plain record `a` loses to plain record `b`: by version, then a tombstone before a value,
    /// then the value's bytes, then the expiry (none first); of one version, a sealed record orders by its bytes. An expiry never decides between two
    /// writes — distinct writes carry distinct versions — and an expired record still wins by its
    /// version (it reads as absent everywhere, so an older value cannot come back).
    package static func plainOrder(_ a: Record, _ b: Record) -> Bool {
        if a.version != b.version { return a.version < b.version }
        // A sealed record's contents are not readable here: two of one version order by their bytes.
        if a.isSealed || b.isSealed { return a.encoded.lexicographicallyPrecedes(b.encoded) }
        switch (a.valueBytes, b.valueBytes) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case (let x?, let y?) where x != y: return x.lexicographicallyPrecedes(y)
        default:
            switch (a.expiryMilliseconds, b.expiryMilliseconds) {
            case (let x?, let y?): return x < y
            case (nil, _?): return true
            default: return false
            }
        }
    }

    /// Whether `b`'s policy is the one a merge of `a` and `b` reads by: the record with the greater
    /// version's (on a tie, the greater policy code).
    private static func newerPolicy(_ a: Record, _ b: Record) -> Bool {
        if a.version != b.version { return a.version < b.version }
        return a.policy.code < b.policy.code
    }
}
