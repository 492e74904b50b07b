import Foundation
import TestSupport
import Testing

@testable import LMDB

#if canImport(Glibc)
    import Glibc
#endif

/// The LMDB layer's operations calls: the hot copy, map statistics with the free list, reader slots,
/// and a write transaction's cursors (`EnvironmentOperationsTests+WriteCursors.swift`).
@Suite("The LMDB layer: copy, statistics, readers, write cursors")
struct EnvironmentOperationsTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory() }

    func open(_ name: String) throws -> Environment {
        let path = tmp.path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return try Environment.open(directory: path)
    }

    @Test func aCopyHoldsTheCommittedDataAndNeverOverwrites() throws {
        defer { tmp.remove() }
        let env = try open("source")
        let db = try env.database(named: "t")
        try env.write { txn in for i: UInt8 in 0..<100 { try txn.put(db, [i], Array(repeating: i, count: 1000)) } }
        let dest = tmp.path("copy")
        try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: false)
        let bytes = try env.copy(intoDirectory: dest, compact: true)
        var info = stat()
        #expect(stat(dest + "/data.mdb", &info) == 0 && Int(info.st_size) == bytes && info.st_mode & 0o777 == 0o600)

        let copy = try Environment.open(directory: dest)
        let copied = try copy.database(named: "t")
        #expect(try copy.read { try $0.get(copied, [42]) } == Array(repeating: 42, count: 1000))
        #expect(try copy.read { try $0.statistics(copied).entries } == 100)

        #expect(throws: LMDBError(code: EEXIST, operation: "creating \(dest)/data.mdb for the copy")) {
            try env.copy(intoDirectory: dest, compact: false)
        }
        #expect(try copy.read { try $0.get(copied, [42]) } == Array(repeating: 42, count: 1000), "the existing copy is untouched")
    }

    @Test func freePagesCountWhatDeletesGaveBack() throws {
        defer { tmp.remove() }
        let env = try open("free")
        let db = try env.database(named: "t")
        try env.write { txn in for i: UInt16 in 0..<300 { try txn.put(db, [UInt8(i >> 8), UInt8(i & 0xff)], Array(repeating: 7, count: 2000)) } }
        let before = try env.read { try env.statistics(of: [db], in: $0) }
        try env.write { txn in for i: UInt16 in 0..<300 { try txn.delete(db, [UInt8(i >> 8), UInt8(i & 0xff)]) } }
        try env.write { txn in try txn.put(db, [0], [0]) } // a later commit puts the freed pages on the list
        let after = try env.read { try env.statistics(of: [db], in: $0) }
        #expect(after.freePages >= 300, "300 values of 2000 bytes took a page each: \(before.freePages) -> \(after.freePages)")
        #expect(after.freePages < after.pagesUsed, "free pages are among the used ones")
        #expect(after.databases["t"]?.entries == 1)
        #expect(after.databases["freelist"]?.entries ?? 0 > 0)
        #expect(after.pageSize == Int(sysconf(Int32(_SC_PAGESIZE))) && after.mapPages * after.pageSize == after.mapBytes)
    }

    @Test func readerSlotsShowThisProcessReading() throws {
        defer { tmp.remove() }
        let env = try open("readers")
        let db = try env.database(named: "t")
        let inside = try env.read { txn -> [ReaderSlot] in
            _ = try txn.get(db, [1])
            return try env.readerSlots()
        }
        let mine = inside.filter { $0.processID == getpid() }
        #expect(mine.contains { $0.transactionID != nil }, "\(inside)")
        #expect(mine.allSatisfy { $0.processIsAlive })
        let outside = try env.readerSlots().filter { $0.processID == getpid() }
        #expect(outside.allSatisfy { $0.transactionID == nil }, "a pooled, reset transaction keeps its slot idle: \(outside)")
    }
}
