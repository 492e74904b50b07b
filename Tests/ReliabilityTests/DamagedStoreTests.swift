import Concord
import Foundation
import TestSupport
import Testing

/// Damaged store files are reported (exit 4, "damaged"), never a crash or a hang. Every damaged
/// store is opened by sync-tool in a child process, so a crash is a signal exit that fails the test.
@Suite(.offThePool) struct DamagedStoreTests {
    /// A store with small, medium and overflow-page values, several write transactions and two-level trees.
    static func makeStore(at dir: String) throws {
        let store = try Store(path: dir)
        let suite = try store.suite("app")
        var random = SeededRandom(seed: 0xDA7A)
        for chunk in 0..<4 {
            try suite.batch { b in
                for i in (chunk * 100)..<(chunk * 100 + 100) {
                    let size = i % 25 == 0 ? 20_000 : [12, 90, 700, 2_500][Int.random(in: 0..<4, using: &random)]
                    try b.set("value-\(i)-" + String(repeating: "v", count: size), forKey: "key-\(i)")
                }
            }
        }
        try suite.set("marker-value-for-bit-rot", forKey: "marked")
    }

    static func copy(_ from: String, to: String) throws {
        try FileManager.default.createDirectory(atPath: to, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for file in ["data.mdb", "lock.mdb", "notify"] {
            try FileManager.default.copyItem(atPath: from + "/" + file, toPath: to + "/" + file)
        }
    }

    static func expectDamagedNotCrashed(_ outcome: ProcessResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.exited(4), "\(what): exit 4, not a crash or a hang: \(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.stderr.contains("damaged"), "\(what): the message says the store is damaged: \(outcome.stderr)", sourceLocation: sourceLocation)
    }

    enum Truncation: String, CaseIterable, Sendable { case half, twoMetaPages, hundredBytes, empty }

    @Test(arguments: Truncation.allCases)
    func truncatedDataFileIsReportedDamaged(_ cut: Truncation) throws {
        let tmp = try TemporaryDirectory("concord-truncated")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try Self.makeStore(at: dir)
        let path = dir + "/data.mdb"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let length: Int
        switch cut {
        case .half: length = size / 2
        case .twoMetaPages: length = 2 * DataFilePages.pageSize
        case .hundredBytes: length = 100
        case .empty: length = 0
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()

        let check = try run("sync-tool", ["check", dir], timeout: 60)
        Self.expectDamagedNotCrashed(check, "check of a data file cut to \(length) of \(size) bytes")
        let get = try run("sync-tool", ["get", dir, "app", "key-1"], timeout: 60)
        Self.expectDamagedNotCrashed(get, "get from a data file cut to \(length) of \(size) bytes")
        let set = try run("sync-tool", ["set", dir, "app", "key-1", "new"], timeout: 60)
        Self.expectDamagedNotCrashed(set, "set into a data file cut to \(length) of \(size) bytes")
        figure("truncated data file (\(cut.rawValue))", "cut to \(length) of \(size) bytes: exit 4: \(check.stderr.trimmed.prefix(220))")
    }

    @Test func bothMetaPagesOverwrittenIsReportedDamaged() throws {
        let tmp = try TemporaryDirectory("concord-meta")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try Self.makeStore(at: dir)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/data.mdb"))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 2 * DataFilePages.pageSize))
        try handle.close()
        let check = try run("sync-tool", ["check", dir], timeout: 60)
        Self.expectDamagedNotCrashed(check, "check with both meta pages overwritten")
        figure("meta pages overwritten", "exit 4: \(check.stderr.trimmed.prefix(200))")
    }

    @Test func bitRotInAValueIsFoundByCheck() throws {
        let tmp = try TemporaryDirectory("concord-bit-rot")
        defer { tmp.remove() }
        let base = tmp.path("base")
        let dir = tmp.path("replica")
        try Self.makeStore(at: base)
        try Self.copy(base, to: dir)
        var file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb")))
        let marker = Array("marker-value-for-bit-rot".utf8)
        // The value is stored twice (its record and its journal entry); rot one copy.
        let at = try #require((0...(file.count - marker.count)).first { file[$0..<($0 + marker.count)].elementsEqual(marker) })
        file[at + 3] ^= 0x04
        try Data(file).write(to: URL(fileURLWithPath: dir + "/data.mdb"))

        let check = try run("sync-tool", ["check", dir], timeout: 60)
        Self.expectDamagedNotCrashed(check, "check of a store with one flipped bit in a value")
        #expect(check.stderr.contains("marked"), "the message names the damaged key: \(check.stderr)")
        figure("bit rot in a value", "exit 4: \(check.stderr.trimmed.prefix(200))")
    }

    /// A record whose stored size claims a gigabyte: LMDB hands out a pointer and that size, and copying
    /// it would read past the end of the file (SIGBUS). Every command reports the damage instead.
    @Test func valueSizeRunningPastTheFileIsReportedDamaged() throws {
        let tmp = try TemporaryDirectory("concord-value-size")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try Self.makeStore(at: dir)
        var file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/data.mdb")))
        let key = Array("app\u{0}marked".utf8)
        // The record's leaf node: 8 header bytes (data size low, data size high, flags, key size), then the key.
        func isRecordNode(_ start: Int) -> Bool {
            let keySize = Int(file[start - 2]) | Int(file[start - 1]) << 8
            return keySize == key.count && file[start..<(start + key.count)].elementsEqual(key)
        }
        let found = (8...(file.count - key.count)).first(where: isRecordNode)
        let at = try #require(found, "the record of app/marked is in the file")
        file[at - 8 + 3] ^= 0x40 // the data size grows by 2^30 bytes
        try Data(file).write(to: URL(fileURLWithPath: dir + "/data.mdb"))
        let get = try run("sync-tool", ["get", dir, "app", "marked"], timeout: 60)
        Self.expectDamagedNotCrashed(get, "get of a value whose size runs past the file")
        Self.expectDamagedNotCrashed(try run("sync-tool", ["list", dir, "app"], timeout: 60), "list of a suite holding it")
        Self.expectDamagedNotCrashed(try run("sync-tool", ["check", dir], timeout: 60), "check of a store holding it")
        figure("value size past the end of the file", "get, list and check exit 4: \(get.stderr.trimmed.prefix(220))")
    }

    /// Seeded single-bit flips: in the bytes LMDB trusts (page and node headers, node pointers) and anywhere
    /// in the data pages. Whatever a flip breaks, check and get end with an exit code, never a signal or a hang.
    @Test func bitFlipsInDataPagesNeverCrashOrHang() throws {
        let tmp = try TemporaryDirectory("concord-bit-flips")
        defer { tmp.remove() }
        let base = tmp.path("base")
        try Self.makeStore(at: base)
        let pristine = [UInt8](try Data(contentsOf: URL(fileURLWithPath: base + "/data.mdb")))
        let structural = DataFilePages.structuralOffsets(pristine)
        let anywhere = DataFilePages.dataPageOffsets(pristine)
        let seed: UInt64 = 0xB17F_11B5
        var random = SeededRandom(seed: seed)
        var checkExits: [Int32: Int] = [:]
        var getExits: [Int32: Int] = [:]
        let trials = 36
        for trial in 0..<trials {
            let offset = trial % 3 == 2 ? Int.random(in: anywhere, using: &random) : structural.randomElement(using: &random)!
            let bit = UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            let dir = tmp.path("trial-\(trial)")
            try Self.copy(base, to: dir)
            var file = pristine
            file[offset] ^= bit
            try Data(file).write(to: URL(fileURLWithPath: dir + "/data.mdb"))

            let what = "trial \(trial) (seed \(seed)): bit \(bit) of byte \(offset) (page \(offset / DataFilePages.pageSize))"
            let check = try run("sync-tool", ["check", dir], timeout: 30)
            #expect(!check.signaled && !check.timedOut && (check.status == 0 || check.status == 4), "check, \(what): \(check)")
            if check.status == 4 { #expect(check.stderr.contains("damaged"), "check, \(what): \(check.stderr)") }
            checkExits[check.signaled ? -check.status : check.status, default: 0] += 1
            let get = try run("sync-tool", ["get", dir, "app", "key-\(trial * 11 % 400)"], timeout: 30)
            #expect(!get.signaled && !get.timedOut && [0, 1, 4].contains(get.status), "get, \(what): \(get)")
            getExits[get.signaled ? -get.status : get.status, default: 0] += 1
            try FileManager.default.removeItem(atPath: dir)
        }
        figure(
            "bit flips in data pages",
            "\(trials) single-bit flips (seed \(seed), 2 in 3 in page/node headers of \(structural.count) structural bytes): check exits \(checkExits.sorted { $0.key < $1.key }), get exits \(getExits.sorted { $0.key < $1.key }) (negative: signal)"
        )
    }

    @Test func garbageLockFileIsRebuiltWhenNoProcessUsesIt() throws {
        let tmp = try TemporaryDirectory("concord-garbage-lock")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try Self.makeStore(at: dir)
        var random = SeededRandom(seed: 0x10C4)
        for size in [8192, 100, 0] {
            let garbage = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) })
            try garbage.write(to: URL(fileURLWithPath: dir + "/lock.mdb"))
            // The lock file holds no data: with no other user, LMDB rebuilds it and every value is intact.
            let check = try run("sync-tool", ["check", dir], timeout: 60)
            #expect(check.exited(0), "check with a garbage lock file of \(size) bytes: \(check)")
            let get = try run("sync-tool", ["get", dir, "app", "marked"], timeout: 60)
            #expect(get.exited(0) && get.stdout == "marker-value-for-bit-rot\n", "get with a garbage lock file of \(size) bytes: \(get)")
        }
        figure("garbage lock file, unused", "8 KiB, 100 bytes and empty lock files of garbage were rebuilt; check passed and values read back")
    }

    @Test func garbageLockFileInUseIsReportedDamaged() throws {
        let tmp = try TemporaryDirectory("concord-garbage-lock-in-use")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try Self.makeStore(at: dir)
        let holder = try ChildProcess("concord-test-helper", ["hold-read", dir])
        try #require(holder.waitForLine { $0 == "holding" }, "holder: \(holder.errorOutput)")
        var random = SeededRandom(seed: 0x10C5)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/lock.mdb"))
        try handle.write(contentsOf: Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }))
        try handle.close()
        let check = try run("sync-tool", ["check", dir], timeout: 60)
        Self.expectDamagedNotCrashed(check, "check while another process holds a lock file that was overwritten")
        holder.kill()
        holder.process.waitUntilExit()
        let after = try run("sync-tool", ["check", dir], timeout: 60)
        #expect(after.exited(0), "once no process uses it, the lock file is rebuilt: \(after)")
        figure("garbage lock file, in use", "exit 4 while in use (\(check.stderr.trimmed.prefix(160))); rebuilt and sound once the holder was gone")
    }
}
