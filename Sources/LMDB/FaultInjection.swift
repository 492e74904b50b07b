import Synchronization

/// Makes chosen LMDB calls fail on purpose, so tests can prove that an I/O error
/// (ENOSPC, EIO, a full map) reaches the caller as an error and damages nothing.
///
/// Every C call of this module goes through `CFunctions.swift`, which asks here first.
/// When nothing is injected the check is one relaxed atomic load.
///
/// <!-- assume: let k: [UInt8] = Array("k".utf8), v: [UInt8] = Array("v".utf8) -->
/// ```swift
/// FaultInjection.inject(.commit, code: ENOSPC, times: 1)
/// #expect(throws: LMDBError.self) { try env.write { try $0.put(db, k, v) } }
/// FaultInjection.clear()
/// ```
package enum FaultInjection {
    /// The C calls a fault can be injected into.
    package enum Operation: Hashable, Sendable {
        case beginTransaction // mdb_txn_begin (write transactions)
        case put // mdb_cursor_put (every put, insert and append)
        case commit // mdb_txn_commit (the writes and the fsyncs)
        case setMapSize // mdb_env_set_mapsize (map growth)
        case openEnvironment // mdb_env_open
        case copyEnvironment // mdb_env_copyfd2 (a backup)
    }

    struct Fault {
        var code: Int32
        var remaining: Int? // nil: every call fails until cleared
    }

    private static let armed = Atomic<Bool>(false)
    private static let faults = Mutex<[Operation: Fault]>([:])

    /// Fails the next `times` calls of `operation` with `code` (`nil` times: until `clear()`).
    package static func inject(_ operation: Operation, code: Int32, times: Int? = 1) {
        faults.withLock { $0[operation] = Fault(code: code, remaining: times) }
        armed.store(true, ordering: .releasing)
    }

    /// Removes every injected fault.
    package static func clear() {
        faults.withLock { $0.removeAll() }
        armed.store(false, ordering: .releasing)
    }

    /// The code to fail `operation` with, if a fault is armed for it.
    static func take(_ operation: Operation) -> Int32? {
        guard armed.load(ordering: .relaxed) else { return nil }
        return faults.withLock { table -> Int32? in
            guard var fault = table[operation] else { return nil }
            if let left = fault.remaining {
                if left <= 1 {
                    table[operation] = nil
                } else {
                    fault.remaining = left - 1
                    table[operation] = fault
                }
            }
            return fault.code
        }
    }
}
