import Foundation
import TestSupport
import Testing

@testable import LMDB

/// The environment's own tables: the registry of open directories, the database cache and the read pool.
@Suite("The LMDB layer's tables")
struct EnvironmentTablesTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory() }

    func directory(_ name: String) throws -> String {
        let path = tmp.path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theRegistryKeepsEachDirectoryApartAndForgetsReleasedOnes() throws {
        let (pathA, pathB) = (try directory("a"), try directory("b"))
        let a = try Environment.open(directory: pathA)
        let b = try Environment.open(directory: pathB)
        #expect(a !== b)
        #expect(try Environment.open(directory: pathA) === a) // behind b in the list
        #expect(try Environment.open(directory: pathB + "/.") === b)
        weak var released: Environment?
        try {
            let c = try Environment.open(directory: try directory("c"))
            released = c
        }()
        #expect(released == nil)
        let again = try Environment.open(directory: tmp.path("c"))
        #expect(again !== a && again !== b)
        #expect(try Environment.open(directory: pathA) === a)
    }

    @Test func databasesOpenedTogetherAreFoundByNameAndReopenedFromDisk() throws {
        let path = try directory("dbs")
        var handles: [String: UInt32] = [:]
        try {
            let env = try Environment.open(directory: path)
            try env.openDatabases(named: ["one", "two", "three"])
            for name in ["one", "two", "three"] {
                let db = try env.database(named: name)
                #expect(db.name == name)
                handles[name] = db.dbi
                try env.write { try $0.put(db, [1], Array(name.utf8)) }
            }
            #expect(Set(handles.values).count == 3)
            try env.openDatabases(named: ["two", "four"]) // one cached, one new
            #expect(try env.database(named: "two").dbi == handles["two"])
            #expect(try env.database(named: "four").name == "four")
        }()
        // A new environment finds them existing and opens them read-only; each still holds its own value.
        let env = try Environment.open(directory: path)
        try env.openDatabases(named: ["three", "two", "one"])
        for name in ["one", "two", "three"] {
            let db = try env.database(named: name)
            #expect(try env.read { try $0.get(db, [1]) } == Array(name.utf8))
        }
    }

    @Test func theReadPoolKeepsEightLastInFirstOut() {
        var pool = ReadPool()
        var popped: [OpaquePointer?] = [pool.pop()]
        var kept: [Bool] = []
        let txns = (1...9).map { OpaquePointer(bitPattern: $0 * 16)! }
        for txn in txns { kept.append(pool.push(txn)) }
        for _ in 0..<9 { popped.append(pool.pop()) }
        kept.append(pool.push(txns[8]))
        popped.append(pool.pop())
        #expect(kept == Array(repeating: true, count: 8) + [false, true])
        #expect(popped == [nil] + txns.prefix(8).reversed() + [nil, txns[8]])
    }
}
