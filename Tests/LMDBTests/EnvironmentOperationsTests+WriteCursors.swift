import Testing

@testable import LMDB

/// A write transaction does its gets, puts, appends and deletes through one cursor per database, which
/// LMDB repositions from where the last operation left it: whatever mix of them one transaction runs
/// (with a scan's own cursor deleting meanwhile), the database must hold exactly what was written, in
/// key order, and every entry must be found.
extension EnvironmentOperationsTests {
    static func key(_ n: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: n >> (56 - 8 * UInt64($0))) } }
    static func value(_ n: UInt64, _ generation: Int) -> [UInt8] { Array(repeating: UInt8(truncatingIfNeeded: n), count: 90) + [UInt8(generation)] }

    /// The keys and values `db` holds, in the order a scan returns them, checked to be strictly increasing.
    static func contents(_ txn: Transaction, _ db: Database) throws -> [(UInt64, [UInt8])] {
        var all: [(UInt64, [UInt8])] = []
        try txn.scan(db) { key, value in
            all.append((key.reduce(0) { $0 << 8 | UInt64($1) }, value))
            return true
        }
        let keys = all.map(\.0)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "keys out of order")
        return all
    }

    @Test func appendsPutsAndDeletesInOneTransactionKeepEveryEntryInOrder() throws {
        defer { tmp.remove() }
        let env = try open("mixed")
        let db = try env.database(named: "log")
        var model: [UInt64: [UInt8]] = [:]
        try env.write { txn in
            // Appends over many leaves (each split at the end), then deletes of every third entry.
            for n: UInt64 in 1...3_000 {
                try txn.append(db, key: n, Self.value(n, 0))
                model[n] = Self.value(n, 0)
            }
            for n in stride(from: UInt64(3), through: 3_000, by: 3) {
                #expect(try txn.delete(db, key: n))
                model[n] = nil
            }
            // Another cursor deletes the last 400 entries (emptying the last leaves), then appends go on.
            try txn.withCursor(db) { cursor in
                var removed = 0
                while removed < 400, try cursor.last() != nil {
                    try cursor.deleteCurrent()
                    removed += 1
                }
            }
            for n in model.keys.sorted().suffix(400) { model[n] = nil }
            for n: UInt64 in 3_001...4_000 {
                try txn.append(db, key: n, Self.value(n, 1))
                model[n] = Self.value(n, 1)
            }
            // Puts of keys in the middle (new and replaced), gets, and an append below the last key.
            for n in stride(from: UInt64(3), through: 2_400, by: 6) {
                try txn.put(db, Self.key(n), Self.value(n, 2))
                model[n] = Self.value(n, 2)
                #expect(try txn.get(db, Self.key(n)) == Self.value(n, 2))
            }
            try txn.append(db, key: 10, Self.value(10, 3))
            model[10] = Self.value(10, 3)
            for n: UInt64 in 4_001...4_500 {
                #expect(try txn.get(db, Self.key(n)) == nil)
                try txn.append(db, key: n, Self.value(n, 4))
                model[n] = Self.value(n, 4)
            }
            let held = try Self.contents(txn, db)
            #expect(held.map(\.0) == model.keys.sorted())
        }
        // A later transaction (fresh cursors) sees the same, finds each key, and appends after the last.
        try env.write { txn in
            for n: UInt64 in 4_501...4_600 {
                try txn.append(db, key: n, Self.value(n, 5))
                model[n] = Self.value(n, 5)
            }
        }
        try env.read { txn in
            let held = try Self.contents(txn, db)
            #expect(held.map(\.0) == model.keys.sorted())
            #expect(held.allSatisfy { model[$0.0] == $0.1 })
            for (n, value) in model { #expect(try txn.get(db, Self.key(n)) == value) }
        }
        #expect(try env.verifyPages().isSound)
    }

    @Test func aDatabaseEmptiedAndDroppedInATransactionTakesWritesAgain() throws {
        defer { tmp.remove() }
        let env = try open("dropped")
        let db = try env.database(named: "log")
        try env.write { txn in
            for n: UInt64 in 1...500 { try txn.append(db, key: n, Self.value(n, 0)) }
            for n: UInt64 in 1...500 { #expect(try txn.delete(db, key: n)) }
            #expect(try txn.get(db, Self.key(1)) == nil)
            try txn.append(db, key: 7, Self.value(7, 1))
            try txn.removeAll(db)
            try txn.append(db, key: 3, Self.value(3, 2))
            #expect(try txn.insert(db, Self.key(3), Self.value(3, 3)) == Self.value(3, 2), "insert finds the held value")
            #expect(try txn.insert(db, Self.key(2), Self.value(2, 3)) == nil)
        }
        try env.read { txn in
            let held = try Self.contents(txn, db)
            #expect(held.map(\.0) == [2, 3])
            #expect(held.map(\.1) == [Self.value(2, 3), Self.value(3, 2)])
        }
    }
}
