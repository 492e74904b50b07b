import CLMDB

/// Up to eight reset read transactions an environment keeps for reuse (`mdb_txn_renew` is cheaper
/// than `mdb_txn_begin`), last in first out.
///
/// Fixed slots rather than an array: a fresh process's first read would otherwise make the Swift
/// runtime instantiate the array's generic storage type.
///
/// <!-- assume: let txn: OpaquePointer = given() -->
/// ```swift
/// var pool = ReadPool()
/// if !pool.push(txn) { C.txnAbort(txn) }
/// let reused = pool.pop()
/// ```
struct ReadPool: @unchecked Sendable {
    static let capacity = 8
    private var count = 0
    private var slots: (OpaquePointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?) =
        (nil, nil, nil, nil, nil, nil, nil, nil)

    /// Keeps `txn`; false (keeping nothing) when the pool is full.
    mutating func push(_ txn: OpaquePointer) -> Bool {
        guard count < Self.capacity else { return false }
        let index = count
        withSlots { $0[index] = txn }
        count += 1
        return true
    }

    /// The transaction kept last, taken out of the pool; nil when it is empty.
    mutating func pop() -> OpaquePointer? {
        guard count > 0 else { return nil }
        count -= 1
        let index = count
        return withSlots { slots in
            defer { slots[index] = nil }
            return slots[index]
        }
    }

    private mutating func withSlots<R>(_ body: (UnsafeMutablePointer<OpaquePointer?>) -> R) -> R {
        withUnsafeMutablePointer(to: &slots) { tuple in
            tuple.withMemoryRebound(to: OpaquePointer?.self, capacity: Self.capacity) { body($0) }
        }
    }
}
