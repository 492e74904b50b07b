import Foundation
import TestSupport
import Testing

@testable import LMDB

#if canImport(Glibc)
    import Glibc
#endif

/// A commit that freed pages it had copied (to change them) leaves LMDB's newest meta page counting
/// pages it never wrote: the data file must still reach the end of the pages in use, or the next open
/// refuses it as truncated.
@Suite struct EnvironmentFileLengthTests {
    @Test func aCommitThatFreesWhatItCopiedLeavesAFileThatOpensAgain() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let path = tmp.path("env")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            let env = try Environment.open(directory: path)
            let db = try env.database(named: "t")
            let value = (0..<200).map { UInt8($0) }
            let log = try env.database(named: "log")
            func seq(_ i: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: i >> (8 * (7 - $0))) } }
            try env.write { txn in
                for i in 0..<200 {
                    try txn.put(db, Array("key-\(i)".utf8), value)
                    try txn.put(log, seq(i), value)
                }
            }
            // One transaction appends as many entries again, then deletes the old ones through a cursor:
            // the pages it copies to change them are emptied in the same transaction.
            try env.write { txn in
                for i in 0..<200 {
                    try txn.put(db, Array("key-\(i)".utf8), value.reversed())
                    try txn.put(log, seq(200 + i), value)
                }
                try txn.withCursor(log) { cursor in
                    for _ in 0..<200 {
                        _ = try cursor.first()
                        try cursor.deleteCurrent()
                    }
                }
            }
            let usedBytes = (Int(C.envInfo(env.handle).me_last_pgno) + 1) * env.pageSize
            var info = stat()
            #expect(stat(path + "/data.mdb", &info) == 0)
            #expect(Int(info.st_size) >= usedBytes, "data.mdb is \(info.st_size) bytes, its pages in use end at \(usedBytes)")
        }
        let value = (0..<200).map { UInt8($0) }
        let reopened = try Environment.open(directory: path)
        let db = try reopened.database(named: "t")
        #expect(try reopened.read { txn in try txn.get(db, Array("key-199".utf8)) } == value.reversed())
    }
}
