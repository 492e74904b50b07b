import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// Rows an account's own role writes into its hub: any device of the account, or
/// anyone with its login, can. Each bad row is refused and named by `sync-tool sync DIR URL` (exit 3)
/// while the account's sound rows merge; the device stays `check`-sound and later syncs work.
@Suite("Hub rows the gate refuses", .serialized, .offThePool)
struct HubHostileRowTests {
    let fx: HubFixture
    let alice: (name: String, url: String, password: String)
    static let writer = ReplicaID(bytes: [UInt8](repeating: 0x42, count: 16))!

    init() throws {
        fx = try HubFixture()
        alice = try fx.account("alice")
    }

    /// Writes a row as the account's role can: a fresh seq from its counter, then the row (replacing one for the same key).
    @discardableResult
    func writeRow(
        suite: String, key: String, hlc: UInt64 = HybridClock.wallMilliseconds() << 16, value: [UInt8]?, policy: Bool = false, expires: Int64? = nil,
        sealed: String? = nil
    ) throws -> Int64 {
        let db = try PostgresConnection(ConnectionString(alice.url))
        let seq = try db.execute(
            "UPDATE concord_hub.accounts SET last_seq = last_seq + 1 WHERE name = $1 RETURNING last_seq", [.text(alice.name)]
        ).int64(0, 0)
        let version = (0..<8).map { UInt8(truncatingIfNeeded: hlc >> (56 - 8 * UInt64($0))) } + Self.writer.bytes
        try db.execute(
            """
            INSERT INTO concord_hub.records (account, suite, key, version, value, policy, seq, pushed_by, expires_ms, sealed)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (account, suite, key) DO UPDATE
            SET version = EXCLUDED.version, value = EXCLUDED.value, policy = EXCLUDED.policy, seq = EXCLUDED.seq, pushed_by = EXCLUDED.pushed_by,
              expires_ms = EXCLUDED.expires_ms, sealed = EXCLUDED.sealed
            """,
            [
                .text(alice.name), .text(suite), .text(key), .bytea(version), value.map { .bytea($0) } ?? .null, .bool(policy), .int8(seq),
                .bytea(Self.writer.bytes), expires.map { .int8($0) } ?? .null, sealed.map { .text($0) } ?? .null
            ])
        return seq
    }

    func sync(_ device: String) throws -> ProcessResult { try run("sync-tool", ["sync", fx.path(device), alice.url], timeout: 180) }

    func expectSound(_ device: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let check = try run("sync-tool", ["check", fx.path(device)])
        #expect(check.status == 0, "sync-tool check \(device): \(check.stderr)", sourceLocation: sourceLocation)
    }

    @Test(
        "suites of 300 bytes, '../x', empty and 129 bytes, a 20 MiB value, hlc max, undecodable value and policy bytes, a garbage tag: each refused and named, the sound rows merge"
    )
    func badRowsAreRefusedAndNamed() throws {
        let laptop = try fx.store("laptop")
        for i in 0..<3 { try laptop.suite("prefs").set("v\(i)", forKey: "k\(i)") }
        #expect(try sync("laptop").status == 0)
        let string = try ValueCodec.encode(.string("fine"))
        var seqs: [String: Int64] = [:]
        seqs["long suite"] = try writeRow(suite: String(repeating: "s", count: 300), key: "k", value: string)
        seqs["../x"] = try writeRow(suite: "../x", key: "k", value: string)
        seqs["empty suite"] = try writeRow(suite: "", key: "k", value: string)
        seqs["129 bytes"] = try writeRow(suite: String(repeating: "t", count: 129), key: "k", value: string)
        seqs["20 MiB"] = try writeRow(suite: "prefs", key: "huge", value: try ValueCodec.encode(.data(Data(repeating: 7, count: 20 << 20))))
        seqs["hlc max"] = try writeRow(suite: "prefs", key: "k1", hlc: .max, value: try ValueCodec.encode(.string("pinned forever")))
        seqs["undecodable value"] = try writeRow(suite: "prefs", key: "broken", value: [1, 0xFF])
        seqs["undecodable policy"] = try writeRow(suite: "prefs", key: "counter", value: [1, 9, 9, 9], policy: true)
        seqs["garbage tag"] = try writeRow(suite: "prefs", key: "garbage", value: [200, 1, 2, 3])
        try writeRow(suite: "prefs", key: "sound", value: string)

        let phone = try sync("phone")
        #expect(phone.status == 3, "\(phone.stdout) \(phone.stderr)")
        let line = try #require(phone.lines.first { $0.contains("rows refused") }, "\(phone.stdout)")
        #expect(line.hasPrefix("9 rows refused: "), "\(line)")
        #expect(phone.lines.filter { $0.contains("refused") }.count == 1, "one line: \(phone.stdout)")
        for (what, seq) in seqs { #expect(line.contains("(seq \(seq))"), "\(what) is named with its seq: \(line)") }
        for words in [
            "\"../x\"/\"k\"", "\"\"/\"k\"", "\"prefs\"/\"k1\"", "300 bytes, over the limit of 128", "over the limit of 4194304 bytes",
            "the value's bytes are damaged"
        ] {
            #expect(line.contains(words), "\(words): \(line)")
        }
        #expect(!line.contains("newer"), "garbage is damage, not a newer Concord's: \(line)")
        let json = try run("sync-tool", ["sync", fx.path("tablet"), alice.url, "--json"])
        #expect(json.status == 3 && json.stdout.contains("\"rows_refused\":9"), "\(json.stdout)")
        let problems = try HubSynchronizer().sync(try fx.store("watch"), try Hub(alice.url)).bToA.refused.map(\.refusal)
        #expect(problems == [.suiteName, .suiteName, .suiteName, .suiteName, .valueSize, .version, .undecodable, .undecodable, .undecodable])

        let store = try fx.store("phone")
        #expect(try store.suiteNames() == ["prefs"])
        #expect(try store.suite("prefs").keys().sorted() == ["k0", "k2", "sound"], "the forged k1 stays out")
        try expectSound("phone")

        // Later syncs work: the cursor moved past the damage (reported once), new changes arrive, and a
        // push replaces the forged row (its version is no version).
        try laptop.suite("prefs").set("new", forKey: "after")
        try laptop.suite("prefs").set("fixed", forKey: "k1")
        let pushed = try sync("laptop")
        #expect(pushed.status == 3 && pushed.stdout.contains("8 rows refused"), "the laptop meets the others now: \(pushed.stdout)")
        let later = try sync("phone")
        #expect(later.status == 0 && !later.stdout.contains("refused"), "\(later.stdout) \(later.stderr)")
        #expect(try store.suite("prefs").get("after", as: String.self) == "new")
        #expect(try store.suite("prefs").get("k1", as: String.self) == "fixed")
        try expectSound("phone")
    }

    @Test("expiries no clock produces, and expiries on a tombstone or a policy row, are refused and named; a sound expiring row merges with its expiry")
    func badExpiriesAreRefused() throws {
        let string = try ValueCodec.encode(.string("fine"))
        let later = Int64(HybridClock.wallMilliseconds() + 3_600_000)
        var seqs: [String: Int64] = [:]
        seqs["zero"] = try writeRow(suite: "prefs", key: "zero", value: string, expires: 0)
        seqs["negative"] = try writeRow(suite: "prefs", key: "negative", value: string, expires: -5)
        seqs["year 10000"] = try writeRow(suite: "prefs", key: "far", value: string, expires: Int64(HybridClock.maxMilliseconds) + 1)
        seqs["tombstone"] = try writeRow(suite: "prefs", key: "deleted", value: nil, expires: later)
        seqs["policy"] = try writeRow(suite: "prefs", key: "counter", value: PolicyState(policy: .counter).encoded, policy: true, expires: later)
        try writeRow(suite: "prefs", key: "sound", value: string, expires: later)
        let result = try sync("phone")
        #expect(result.status == 3, "\(result.stdout) \(result.stderr)")
        let line = try #require(result.lines.first { $0.contains("rows refused") }, "\(result.stdout)")
        #expect(line.hasPrefix("5 rows refused: "), "\(line)")
        for (what, seq) in seqs { #expect(line.contains("(seq \(seq))"), "\(what): \(line)") }
        #expect(line.contains("its expiry") && line.contains("with an expiry"), "\(line)")
        let store = try fx.store("phone")
        #expect(try store.suite("prefs").keys() == ["sound"])
        #expect(try store.suite("prefs").record(forKey: "sound")?.expiresAtMilliseconds == UInt64(later))
        try expectSound("phone")
    }

    @Test(
        "rows of an encrypted suite: a value in the clear, a sealed row of a suite no declaration names, a seal too short or not opening under the key — each refused and named; a deletion in the clear and the sound sealed rows merge"
    )
    func badRowsOfAnEncryptedSuite() throws {
        let key = EncryptionKey.generate()
        try key.write(toFile: fx.path("secrets.key"))
        let laptop = try Store(path: fx.path("laptop"), options: Self.holding(key))
        try laptop.suite("secrets").encrypt(with: key)
        try laptop.suite("secrets").set("s3cret", forKey: "token")
        #expect(try sync("laptop").status == 0)
        // Two more devices meet the suite's declaration: one given the key, a backup without it.
        let keyFile = ["--key-file", fx.path("secrets.key")]
        for (device, arguments) in [("phone", keyFile), ("backup", [])] {
            let first = try run("sync-tool", ["sync", fx.path(device), alice.url] + arguments, timeout: 180)
            #expect(first.status == 0, "\(device): \(first.stdout) \(first.stderr)")
        }
        let rowKey = String(repeating: "ab", count: 16)
        let sealedBytes = (0..<60).map { UInt8($0) }
        var seqs: [String: Int64] = [:]
        seqs["in the clear"] = try writeRow(suite: "secrets", key: "leaked", value: try ValueCodec.encode(.string("in the clear")))
        seqs["policy"] = try writeRow(suite: "secrets", key: "counter", value: PolicyState(policy: .counter).encoded, policy: true)
        seqs["undeclared"] = try writeRow(suite: "other", key: rowKey, value: sealedBytes, sealed: "value")
        seqs["short"] = try writeRow(suite: "secrets", key: String(repeating: "cd", count: 16), value: [1, 2, 3], sealed: "value")
        let forged = try writeRow(suite: "secrets", key: rowKey, value: sealedBytes, sealed: "value")
        try writeRow(suite: "secrets", key: "old-name", value: nil)

        // A key holder refuses all five; a replica without the key cannot tell the forged seal from a sound one.
        for (device, arguments, refused) in [("phone", keyFile, 5), ("backup", [], 4)] {
            let result = try run("sync-tool", ["sync", fx.path(device), alice.url] + arguments, timeout: 180)
            #expect(result.status == 3, "\(device): \(result.stdout) \(result.stderr)")
            let line = try #require(result.lines.first { $0.contains("refused") }, "\(device): \(result.stdout)")
            #expect(line.hasPrefix("\(refused) rows refused: "), "\(device): \(line)")
            for (what, seq) in seqs { #expect(line.contains("(seq \(seq))"), "\(device), \(what): \(line)") }
            #expect(line.contains("(seq \(forged))") == (refused == 5), "\(device): \(line)")
            #expect(line.contains("declared encrypted") && line.contains("no declaration names suite \"other\""), "\(line)")
            try expectSound(device)
        }
        let phone = try Store(path: fx.path("phone"), options: Self.holding(key))
        #expect(try phone.suite("secrets").keys() == ["token"])
        #expect(try phone.suite("secrets").get("token", as: String.self) == "s3cret")
        #expect(try phone.read { r in try r.record(suite: "secrets", key: "old-name") }?.isTombstone == true, "the deletion in the clear merged")
        #expect(try phone.read { r in try r.record(suite: "secrets", key: rowKey) } == nil, "the forged seal stayed out")
        #expect(try phone.suiteNames().contains("other") == false)
    }

    /// Store options holding `key` for suite "secrets".
    static func holding(_ key: EncryptionKey) -> Store.Options {
        var options = Store.Options()
        options.suiteKeys["secrets"] = key
        return options
    }

    @Test(
        "a row of a tag just past the newest known is a newer Concord's: named as such every sync (the cursor stops before it), the rows after it still merge")
    func aNewerConcordsRowHoldsTheCursor() throws {
        let string = try ValueCodec.encode(.string("fine"))
        try writeRow(suite: "prefs", key: "before", value: string)
        let newer = try writeRow(suite: "prefs", key: "newer", value: [13, 0])
        try writeRow(suite: "prefs", key: "after", value: string)
        for round in 0..<2 {
            let result = try sync("phone")
            #expect(result.status == 3, "round \(round): \(result.stdout) \(result.stderr)")
            #expect(
                result.stdout.contains("1 row refused: \"prefs\"/\"newer\" (seq \(newer))") && result.stdout.contains("upgrade Concord"), "\(result.stdout)")
        }
        let store = try fx.store("phone")
        #expect(try store.suite("prefs").keys().sorted() == ["after", "before"])
        let hub = try Hub(alice.url)
        #expect(try store.peerCursors().received(from: hub.replicaID, scope: .allSuites) == UInt64(newer - 1))
        try expectSound("phone")
    }

    @Test(
        "a key with U+0000 arriving by a bundle or a serve batch is refused there, so the next hub sync works; one stored before the gate is left out of the push"
    )
    func aKeyHoldingNUL() throws {
        let phone = fx.path("phone")
        _ = try Store(path: phone)
        let writer = Self.writer
        let entries = [
            RemoteEntry(seq: 1, suite: "prefs", key: "a\u{0}b", record: try Record(version: Version(hlc: 1 << 40, replica: writer), value: .int(1))),
            RemoteEntry(seq: 2, suite: "prefs", key: "fine", record: try Record(version: Version(hlc: 1 << 40, replica: writer), value: .int(2)))
        ]
        let bundle = fx.path("nul.bundle")
        let batch = RemoteBatch(source: writer, selection: .all, fromSeq: 0, toSeq: 2, entries: entries, knowledge: .none)
        try Data(SyncBundle(batch: batch, createdMilliseconds: 1).encoded()).write(to: URL(fileURLWithPath: bundle))
        let imported = try run("sync-tool", ["import", phone, bundle])
        #expect(imported.status == 3 && imported.stderr.contains("U+0000"), "\(imported.stderr)")
        // The same batch from a `serve` client: refused whole too.
        var hello = SyncHello(replica: writer, selection: .all, knowledge: .none, lastSeq: 2)
        hello.milliseconds = 1
        let frames = fx.path("nul.frames")
        try Data(SyncFrame.hello(hello).encoded() + SyncFrame.batch(batch).encoded() + SyncFrame.end.encoded()).write(to: URL(fileURLWithPath: frames))
        let served = try run("/bin/sh", ["-c", "exec \"$0\" serve \"$1\" --timeout 5 < \"$2\"", Binaries.path("sync-tool"), phone, frames])
        #expect(served.status == 3 && served.stderr.contains("U+0000"), "\(served.stderr)")
        #expect(try Store(path: phone).lastSeq() == 0, "nothing was merged")
        try Store(path: phone).suite("prefs").set("here", forKey: "mine")
        let synced = try sync("phone")
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")

        // A replica that took such a key before the gate: the push leaves it out, says so once, pushes the rest.
        let old = try fx.store("old")
        try old.write { w in try w.storeUncheckedForTesting(entries[0].record, suite: "prefs", key: "a\u{0}b", from: writer) }
        try old.suite("prefs").set("old's", forKey: "other")
        let first = try sync("old")
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        #expect(first.stdout.contains("1 change left out of the push: \"prefs\"/\"a\\u{0}b\""), "\(first.stdout)")
        let second = try sync("old")
        #expect(second.status == 0 && !second.stdout.contains("left out"), "told once: \(second.stdout)")
        #expect(try sync("phone").status == 0)
        #expect(try Store(path: phone).suite("prefs").get("other", as: String.self) == "old's")
        try expectSound("phone")
        try expectSound("old")
    }

    @Test("a device pushing a key whose hub row is damaged replaces the row with its newer record instead of failing")
    func aPushMeetsADamagedRow() throws {
        let laptop = try fx.store("laptop")
        try laptop.suite("prefs").set("first", forKey: "theme")
        #expect(try sync("laptop").status == 0)
        try writeRow(suite: "prefs", key: "theme", hlc: 1 << 40, value: [200, 0])
        try laptop.suite("prefs").set("second", forKey: "theme")
        let pushed = try sync("laptop")
        #expect(pushed.status == 0, "\(pushed.stdout) \(pushed.stderr)")
        let phone = try sync("phone")
        #expect(phone.status == 0, "\(phone.stdout) \(phone.stderr)")
        #expect(try fx.store("phone").suite("prefs").get("theme", as: String.self) == "second")
    }

    @Test("live hub sync (--watch): the round that meets a bad row names it, the sound rows merge, and the loop goes on to later changes")
    func liveSyncGoesOnPastABadRow() throws {
        let string = try ValueCodec.encode(.string("fine"))
        let bad = try writeRow(suite: "../x", key: "k", value: string)
        try writeRow(suite: "prefs", key: "sound", value: string)
        let child = try ChildProcess("sync-tool", ["sync", fx.path("phone"), alice.url, "--watch"])
        defer {
            child.kill()
            _ = child.wait()
        }
        #expect(child.waitForLine(timeout: 60) { $0.contains("1 row refused: \"../x\"/\"k\" (seq \(bad))") }, "\(child.output) \(child.errorOutput)")
        let laptop = try fx.store("laptop")
        try laptop.suite("prefs").set("later", forKey: "after")
        #expect(try sync("laptop").status == 3, "the laptop meets the bad row too")
        let store = try fx.store("phone")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (try? store.suite("prefs").get("after", as: String.self)) != "later" { usleep(20_000) }
        #expect(try store.suite("prefs").get("after", as: String.self) == "later", "\(child.output) \(child.errorOutput)")
        #expect(try store.suite("prefs").get("sound", as: String.self) == "fine")
        #expect(try store.suiteNames() == ["prefs"])
        try expectSound("phone")
    }
}
