import Foundation
import LMDB
import TestSupport
import Testing

@testable import Concord

@Suite("Opening and creating replicas", .offThePool)
struct StoreOpeningTests {
    @Test func createsThePrivateDirectoryAndStampsIdentity() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("nested/replica")
        let store = try Store(path: dir)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        for file in ["data.mdb", "lock.mdb", "notify"] {
            let mode = try FileManager.default.attributesOfItem(atPath: dir + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
        }
        // The identity is stable and shared by every opener.
        let info = try run("sync-tool", ["info", dir, "--json"])
        #expect(info.stdout.contains(store.replicaID.description))
        #expect(try Store(path: dir).replicaID == store.replicaID)
    }

    @Test func aNewerFormatIsRefusedAndNothingIsRewritten() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("r")
        #expect(try run("sync-tool", ["set", dir, "app", "k", "v"]).status == 0)
        // Stamp the next format with the LMDB layer directly, as a newer Concord would.
        let newer = Store.formatVersion + 1
        do {
            let env = try Environment.open(directory: dir)
            let meta = try env.database(named: "meta")
            try env.write { txn in try txn.put(meta, Array("format".utf8), [0, 0, 0, UInt8(newer)]) }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb"))
        let result = try run("sync-tool", ["get", dir, "app", "k"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("format version \(newer)"))
        let after = try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb"))
        #expect(before == after)
    }

    @Test func unsafeDirectoriesAreRefused() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let open = tmp.path("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        chmod(open, 0o777)
        expectError(.insecure) { _ = try Store(path: open) }

        let linked = tmp.path("linked")
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(atPath: linked + "/data.mdb", withDestinationPath: tmp.path("elsewhere.mdb"))
        expectError(.insecure) { _ = try Store(path: linked) }
    }

    @Test func readCommandsDoNotCreateStores() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let result = try run("sync-tool", ["list", tmp.path("missing")])
        #expect(result.status == 4)
        #expect(!FileManager.default.fileExists(atPath: tmp.path("missing")))
    }
}
