import ConcordStore
/// The merge rule (see the architecture document, "Merge") as pure functions: of two records the one with the greater version
/// wins; a tombstone is a record like any other. Commutative, associative and idempotent, so
/// replicas that exchanged the same records hold the same records whatever the order.
///
/// Two distinct writes never carry the same version; should two different records with one version
/// ever meet (a damaged or forged input), the order still decides deterministically: a tombstone
/// before a value, then the value's encoded bytes.
///
/// ```swift
/// let kept = RecordMerge.winner(local, remote)
/// let state = RecordMerge.merge(replicaA, replicaB)   // key by key
/// ```
package enum RecordMerge {
    /// Whether `a` loses to `b` (the total order the merge follows).
    package static func precedes(_ a: Record, _ b: Record) -> Bool {
        if a.version != b.version { return a.version < b.version }
        switch (a.valueBytes, b.valueBytes) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case let (x?, y?): return x.lexicographicallyPrecedes(y)
        }
    }

    /// The record that survives merging `a` and `b`.
    package static func winner(_ a: Record, _ b: Record) -> Record {
        precedes(a, b) ? b : a
    }

    /// Merges two optional records (absent loses to anything).
    package static func merge(_ a: Record?, _ b: Record?) -> Record? {
        switch (a, b) {
        case let (a?, b?): return winner(a, b)
        case let (a?, nil): return a
        case let (nil, b): return b
        }
    }

    /// Merges two replica states key by key.
    package static func merge(_ a: [SuiteKey: Record], _ b: [SuiteKey: Record]) -> [SuiteKey: Record] {
        var out = a
        for (key, record) in b { out[key] = merge(out[key], record) }
        return out
    }
}
