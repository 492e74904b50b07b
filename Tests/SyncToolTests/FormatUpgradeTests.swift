import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

/// Stores written by older releases (fixtures/stores/format1, the first release; fixtures/stores/format3,
/// the last release of format 3) open with today's code, which upgrades them in place, and read exactly
/// as those releases printed them.
@Suite(.offThePool) struct FormatUpgradeTests {
    static let stores: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/fixtures/stores"
    }()
    static let fixtures = stores + "/format1"

    /// A private copy of a fixture replica (the repository's copy is never opened).
    static func copy(_ name: String, into tmp: TemporaryDirectory, from fixtures: String = fixtures) throws -> String {
        let dir = tmp.path(name)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: fixtures + "/\(name)/data.mdb", toPath: dir + "/data.mdb")
        return dir
    }

    /// Private copies of a fixture's phone and watch, in a directory the caller removes.
    static func copies(of format: String = "format1") throws -> (tmp: TemporaryDirectory, phone: String, watch: String) {
        let (fixtures, tmp) = (stores + "/" + format, try TemporaryDirectory())
        do {
            return (tmp, try copy("phone", into: tmp, from: fixtures), try copy("watch", into: tmp, from: fixtures))
        } catch {
            tmp.remove()
            throw error
        }
    }

    /// The JSON object a command printed last (its report).
    static func json(_ run: Invocation) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data((run.out.last ?? "").utf8)) as? [String: Any], "\(run.out) \(run.err)")
    }

    /// `sync A B --json`, expected to succeed: its report.
    static func syncReport(_ a: String, _ b: String) throws -> [String: Any] {
        let sync = Invocation(["sync", a, b, "--json"])
        #expect(sync.status == 0, "\(sync.err)")
        return try json(sync)
    }

    /// Every replica given passes `sync-tool check`.
    static func expectSound(_ dirs: String...) {
        for dir in dirs { #expect(Invocation(["check", dir]).status == 0, "check \(dir)") }
    }

    static func expected(_ file: String, in fixtures: String = fixtures) throws -> [String] {
        try String(contentsOfFile: fixtures + "/expected/" + file, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test(arguments: ["format1", "format3", "format5", "format7"], ["phone", "watch"])
    func anOlderReplicaReadsAsItsReleasePrintedIt(_ format: String, _ name: String) throws {
        let fixtures = Self.stores + "/" + format
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = try Self.copy(name, into: tmp, from: fixtures)
        for (command, file) in [("list", "list"), ("log", "log"), ("conflicts", "conflicts")] {
            let run = Invocation([command, dir, "--json"])
            #expect(run.status == 0, "\(command): \(run.err)")
            #expect(run.out == (try Self.expected("\(name)-\(file).jsonl", in: fixtures)), "\(command) of \(format)/\(name)")
        }
        let info = try #require(try JSONSerialization.jsonObject(with: Data((Invocation(["info", dir, "--json"]).out.first ?? "").utf8)) as? [String: Any])
        let before = try #require(
            try JSONSerialization.jsonObject(with: Data((try Self.expected("\(name)-info.json", in: fixtures)).joined().utf8)) as? [String: Any])
        for field in ["replica", "suites", "records", "tombstones", "journal_entries", "last_seq"] {
            #expect("\(info[field] ?? "missing")" == "\(before[field] ?? "missing")", "info \(field) of \(format)/\(name)")
        }
        #expect(info["format"] as? Int == Int(Store.formatVersion), "upgraded in place to the current format")
        #expect(Invocation(["check", dir]).status == 0)
    }

    /// After the upgrade the journal's last entry carries the clock and seq: writes go on from the seq
    /// and clock the old format kept in meta/state, and a reopened store reads them back from the journal.
    @Test func aFormat3ReplicaGoesOnFromItsSeqAndClockAndKeepsItsPolicies() throws {
        let (tmp, phone, watch) = try Self.copies(of: "format3")
        defer { tmp.remove() }
        let before = try #require(
            try JSONSerialization.jsonObject(with: Data((try Self.expected("phone-info.json", in: Self.stores + "/format3")).joined().utf8)) as? [String: Any])
        let lastSeq = try #require(before["last_seq"] as? Int)
        let oldMax = try Store(path: phone).journalEntries(after: 0).map(\.record.version.hlc).max() ?? 0
        #expect(Invocation(["set", phone, "prefs", "after", "upgrade"]).status == 0)
        let store = try Store(path: phone)
        let entry = try #require(try store.journalEntries(after: UInt64(lastSeq)).first)
        #expect(entry.seq == UInt64(lastSeq) + 1 && entry.key == "after", "the next seq after the old last seq")
        #expect(entry.record.version.hlc > oldMax, "the clock went on from where format 3 kept it")
        #expect(try store.lastSeq() == UInt64(lastSeq) + 1)
        // The counter incremented on both replicas still adds up, and merges on.
        #expect(Invocation(["get", phone, "stats", "visits"]).out == ["5"])
        #expect(Invocation(["sync", phone, watch]).status == 0)
        #expect(Invocation(["get", phone, "stats", "visits"]).out == ["6"])
        #expect(Invocation(["get", watch, "stats", "visits"]).out == ["6"])
        #expect(Invocation(["get", watch, "prefs", "after"]).out == ["upgrade"])
        Self.expectSound(phone, watch)
    }

    /// A format-5 replica (bound cursors, names) upgraded in place takes values that expire and keys
    /// that stay on the device, and syncs them with its upgraded peer as a delta: its cursors stay bound.
    @Test func aFormat5ReplicaTakesExpiringAndDeviceLocalValuesAndSyncsThemAsADelta() throws {
        let (tmp, phone, watch) = try Self.copies(of: "format5")
        defer { tmp.remove() }
        #expect(Invocation(["sync", phone, watch]).status == 0)
        #expect(Invocation(["set", phone, "prefs", "token", "abc", "--expires-in", "3600"]).status == 0)
        #expect(Invocation(["scope", phone, "prefs", "cache", "device"]).status == 0)
        #expect(Invocation(["set", phone, "prefs", "cache", "/var/cache"]).status == 0)
        let report = try Self.syncReport(phone, watch)
        #expect(report["sent_a_to_b"] as? Int == 2, "the expiring value and the declaration, not the device-local value: \(report)")
        #expect(report["history_resync"] == nil || report["history_resync"] is NSNull, "the format-5 cursors stay bound: \(report)")
        #expect(Invocation(["get", watch, "prefs", "token"]).out == ["abc"])
        #expect(Invocation(["get", watch, "prefs", "cache"]).status == 1)
        #expect(Invocation(["scope", watch, "prefs", "cache"]).out == ["device"])
        Self.expectSound(phone, watch)
    }

    /// A format-7 replica upgraded in place keeps its journal as it was (one entry per key); from then on
    /// a rewrite appends, leaving the entry it supersedes, which `log`, `stat` and a sync pass over.
    @Test func aFormat7ReplicaRewritesByAppendingAndSyncsOnlyTheLatestRecord() throws {
        let (tmp, phone, watch) = try Self.copies(of: "format7")
        defer { tmp.remove() }
        #expect(Invocation(["sync", phone, watch]).status == 0)
        let before = Invocation(["log", phone, "--json"]).out
        #expect(Invocation(["set", phone, "prefs", "counter", "4", "--type", "int"]).status == 0)
        #expect(Invocation(["set", phone, "prefs", "counter", "5", "--type", "int"]).status == 0)
        let log = Invocation(["log", phone, "--json"]).out
        #expect(log.count == before.count, "one live entry per key: \(log.count) against \(before.count)")
        #expect(log.last?.contains("\"key\":\"counter\"") == true && log.last?.contains("\"value\":5") == true, "\(log.last ?? "")")
        #expect(log.filter { $0.contains("\"key\":\"counter\"") }.count == 1)
        let stat = try #require(try JSONSerialization.jsonObject(with: Data(Invocation(["stat", phone, "--json"]).out.joined().utf8)) as? [String: Any])
        #expect(stat["superseded_journal_entries"] as? Int == 2)
        let report = try Self.syncReport(phone, watch)
        #expect(report["sent_a_to_b"] as? Int == 1, "the counter's latest record alone: \(report)")
        #expect(Invocation(["get", watch, "prefs", "counter"]).out == ["5"])
        Self.expectSound(phone, watch)
    }

    /// Cursors written before history marks cannot be proven: nothing ties them to the history they
    /// were merged from (a replica restored before the upgrade would look the same). The first sync after
    /// the upgrade resends everything both ways, once, and says so; from then on the cursors are bound and
    /// a sync sends only what is pending.
    @Test func upgradedReplicasResendEverythingOnceThenSyncOnlyWhatIsPending() throws {
        let (tmp, phone, watch) = try Self.copies()
        defer { tmp.remove() }
        let entries = { (dir: String) in try Store(path: dir).journalEntries(after: 0).count }
        let (phoneEntries, watchEntries) = (try entries(phone), try entries(watch))
        let plan = Invocation(["sync", phone, watch, "--dry-run", "--json"])
        #expect(plan.status == 10)
        let fields = try Self.json(plan)
        #expect(fields["sent_a_to_b"] as? Int == phoneEntries, "everything the phone holds: \(plan.out)")
        #expect(fields["sent_b_to_a"] as? Int == watchEntries, "everything the watch holds: \(plan.out)")
        let said = try #require(fields["history_resync"] as? String, "\(plan.out)")
        #expect(said.contains("predate history marks") && said.contains("would resend everything both ways once"), "\(said)")
        #expect(fields["restored"] as? [String] == [], "an upgrade is not a rollback")
        let synced = Invocation(["sync", phone, watch])
        #expect(synced.status == 0)
        #expect(synced.out.contains { $0.contains("predate history marks") && $0.contains("resending everything both ways once") }, "\(synced.out)")
        #expect(Invocation(["get", watch, "ui", "accent"]).out == ["blue"])
        // Bound now: a sync finds nothing to resend, and a new change is all that travels.
        let quiet = try Self.json(Invocation(["sync", phone, watch, "--dry-run", "--json"]))
        #expect(quiet["in_sync"] as? Bool == true && quiet["history_resync"] is NSNull, "\(quiet)")
        #expect(Invocation(["set", phone, "ui", "accent", "green"]).status == 0)
        let pending = try Self.json(Invocation(["sync", phone, watch, "--dry-run", "--json"]))
        #expect(pending["sent_a_to_b"] as? Int == 1 && pending["sent_b_to_a"] as? Int == 0, "only the change made since: \(pending)")
        // A date written by the first format (seconds since 1970) still reads, and is rewritten in the exact form.
        let store = try Store(path: phone)
        let date = try #require(try store.suite("prefs").get("lastOpened", as: Date.self))
        #expect(JSONValue.formatDate(date) == "2026-11-30T10:15:30.123Z")
        try store.suite("prefs").set(date, forKey: "lastOpened")
        #expect(try store.suite("prefs").get("lastOpened", as: Date.self) == date)
        #expect(try store.integrityReport().isSound)
    }

    @Test func theFirstReleasesConflictsAreStillListedAndClearable() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let phone = try Store(path: try Self.copy("phone", into: tmp))
        let conflicts = try phone.conflicts()
        #expect(conflicts.map(\.key) == ["theme", "theme"])
        #expect(try conflicts.map { try $0.loser.value() } == [.string("dark"), .string("system")])
        #expect(try phone.clearConflicts().count == 2)
        #expect(try phone.conflicts().isEmpty)
    }
}
