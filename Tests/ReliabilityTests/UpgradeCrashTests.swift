import Foundation
import LMDB
import TestSupport
import Testing

/// A process upgrading an older store to the current format, killed (SIGKILL) at each point of the
/// upgrade: the store it leaves opens as the old format or the new one, never damaged, and a fresh
/// process then reads every record, journal entry, cursor, conflict and policy state as the old
/// release printed them.
@Suite(.offThePool) struct UpgradeCrashTests {
    static let stores: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/fixtures/stores"
    }()

    /// The format number in `meta`, read with LMDB alone (opening it as a store would upgrade it).
    static func storedFormat(_ dir: String) throws -> UInt32 {
        let env = try Environment.open(directory: dir)
        let meta = try env.database(named: "meta")
        let bytes = try #require(try env.read { try $0.get(meta, Array("format".utf8)) })
        try #require(bytes.count == 4)
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    @Test(
        arguments: [("format1", UInt32(1)), ("format3", UInt32(3)), ("format5", UInt32(5)), ("format7", UInt32(7))],
        ["began", "upgraded", "stamped", "committed"])
    func killedWhileUpgradingLeavesTheOldFormatOrTheNewOne(_ fixture: (name: String, format: UInt32), _ checkpoint: String) throws {
        let fixtures = Self.stores + "/" + fixture.name
        let tmp = try TemporaryDirectory("concord-upgrade-crash")
        defer { tmp.remove() }
        let dir = tmp.path("phone")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: fixtures + "/phone/data.mdb", toPath: dir + "/data.mdb")

        let upgrader = try ChildProcess("concord-test-helper", ["upgrade-stop", dir, checkpoint])
        try #require(upgrader.waitForLine { $0 == "at \(checkpoint)" }, "the upgrade reaches \(checkpoint): \(upgrader.errorOutput)")
        upgrader.kill()
        upgrader.process.waitUntilExit()

        let found = try Self.storedFormat(dir)
        let current = UInt32(try #require(try run("sync-tool", ["--version", "--json"], timeout: 60).lines.first.flatMap(Self.storeFormat)))
        #expect(
            found == (checkpoint == "committed" ? current : fixture.format),
            "killed at \(checkpoint), the store holds format \(found)")

        // A fresh process opens it (upgrading it if the killed one did not get to commit) and reads it all.
        for command in ["list", "log", "conflicts"] {
            let outcome = try run("sync-tool", [command, dir, "--json"], timeout: 60)
            #expect(outcome.exited(0), "\(command): \(outcome)")
            let expected = try String(contentsOfFile: fixtures + "/expected/phone-\(command).jsonl", encoding: .utf8)
            #expect(outcome.lines == expected.split(separator: "\n").map(String.init), "\(command) after a kill at \(checkpoint)")
        }
        let info = try run("sync-tool", ["info", dir, "--json"], timeout: 60)
        let fields = try #require(try JSONSerialization.jsonObject(with: Data((info.lines.first ?? "").utf8)) as? [String: Any])
        let before = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fixtures + "/expected/phone-info.json"))) as? [String: Any])
        for field in ["replica", "suites", "records", "tombstones", "journal_entries", "last_seq"] {
            #expect("\(fields[field] ?? "missing")" == "\(before[field] ?? "missing")", "info \(field) after a kill at \(checkpoint)")
        }
        #expect(fields["format"] as? Int == Int(current))
        try StoreContents.expectSound(dir)
    }

    static func storeFormat(_ line: String) -> Int? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["store_format"] as? Int
    }
}
