import Foundation
import TestSupport
import Testing

@testable import LMDB

@Suite("The LMDB layer")
struct EnvironmentTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory() }

    func open(_ name: String = "env", mapSize: Int = 1 << 20) throws -> Environment {
        let path = tmp.path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var options = Environment.Options()
        options.mapSize = mapSize
        return try Environment.open(directory: path, options: options)
    }

    @Test func putGetDeleteAndMissingIsNil() throws {
        let env = try open()
        let db = try env.database(named: "t")
        try env.write { txn in try txn.put(db, [1], [10, 11]) }
        #expect(try env.read { try $0.get(db, [1]) } == [10, 11])
        #expect(try env.read { try $0.get(db, [2]) } == nil)
        #expect(try env.write { try $0.delete(db, [1]) })
        #expect(try env.write { try $0.delete(db, [1]) } == false)
    }

    @Test func numberKeysAreEightBigEndianBytesAndAppendFallsBackToPut() throws {
        let env = try open()
        let db = try env.database(named: "log")
        try env.write { txn in
            try txn.append(db, key: 1, [1])
            try txn.append(db, key: 0x0102_0304_0506_0708, [2])
            try txn.append(db, key: 5, [3]) // not after the last key: stored as a put would
        }
        let keys = try env.read { txn in
            var keys: [[UInt8]] = []
            try txn.scan(db) { key, _ in
                keys.append(key)
                return true
            }
            return keys
        }
        #expect(keys == [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 5], [1, 2, 3, 4, 5, 6, 7, 8]])
        #expect(try env.read { try $0.get(db, [0, 0, 0, 0, 0, 0, 0, 5]) } == [3])
        #expect(try env.write { try $0.delete(db, key: 5) })
        #expect(try env.write { try $0.delete(db, key: 5) } == false)
        #expect(try env.read { try $0.get(db, [0, 0, 0, 0, 0, 0, 0, 5]) } == nil)
    }

    @Test func aThrowingWriteAbortsEverything() throws {
        let env = try open()
        let db = try env.database(named: "t")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try env.write { txn in
                try txn.put(db, [1], [1])
                throw Boom()
            }
        }
        #expect(try env.read { try $0.get(db, [1]) } == nil)
    }

    @Test func oneEnvironmentPerPathPerProcess() throws {
        let a = try open("same")
        let b = try open("same")
        #expect(a === b)
    }

    @Test func scanVisitsKeysInOrderFromAStart() throws {
        let env = try open()
        let db = try env.database(named: "t")
        try env.write { txn in for k: UInt8 in [5, 1, 3, 9] { try txn.put(db, [k], [k]) } }
        var seen: [UInt8] = []
        try env.read { txn in
            try txn.scan(db, from: [2]) { key, _ in
                seen.append(key[0])
                return key[0] < 5
            }
        }
        #expect(seen == [3, 5])
        #expect(try env.read { try $0.statistics(db).entries } == 4)
    }

    @Test func aFullMapGrowsAndTheWriteSucceeds() throws {
        let env = try open(mapSize: 64 << 10)
        let db = try env.database(named: "t")
        let before = env.mapSize
        for i in 0..<200 {
            try env.write { txn in try txn.put(db, Array("k\(i)".utf8), [UInt8](repeating: 1, count: 4000)) }
        }
        #expect(env.mapSize > before)
        #expect(try env.read { try $0.statistics(db).entries } == 200)
    }

    @Test func theMapIsLocatedFromAPageHeaderAsProcMapsShowsIt() throws {
        let env = try open(mapSize: 64 << 10)
        let db = try env.database(named: "t")
        // Reopened after it has a database, the region comes from a page of the main database.
        let path = env.path
        _ = db
        let found = try #require(MappedRegion.find(file: path + "/data.mdb"))
        #expect(env.mappedRegion?.start == found.start)
        for i in 0..<100 { try env.write { try $0.put(db, Array("k\(i)".utf8), [UInt8](repeating: 2, count: 4000)) } }
        let grown = try #require(MappedRegion.find(file: path + "/data.mdb"))
        #expect(env.mappedRegion?.start == grown.start)
        #expect(env.mappedRegion?.length == UInt(env.mapSize))
    }

    @Test func errorsCarryCodeMessageAndOperation() {
        let error = LMDBError(code: LMDBError.mapFull, operation: "mdb_put in t")
        #expect(error.description.contains("mdb_put in t"))
        #expect(error.message.contains("MDB_MAP_FULL"))
    }

    @Test func bytesReturnedAreCopiesThatOutliveTheTransaction() throws {
        let env = try open()
        let db = try env.database(named: "t")
        try env.write { try $0.put(db, [1], [42]) }
        let kept = try env.read { try $0.get(db, [1]) }
        try env.write { try $0.put(db, [1], [43]) }
        #expect(kept == [42])
    }
}
