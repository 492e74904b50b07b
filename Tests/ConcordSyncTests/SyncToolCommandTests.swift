import Concord
import Foundation
import TestSupport
import Testing

/// The sync commands of the real `sync-tool` executable: shapes, output, exit codes, and
/// concurrent syncs of overlapping replicas while other processes write.
@Suite(.offThePool) struct SyncToolCommandTests {
    static func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    @Test func theCommandsHaveTheirDocumentedShapes() throws {
        let shapes = [
            "sync":
                "sync-tool sync A B [--suite SUITE]... [--rsh CMD] [--remote-command PATH] [--timeout SECONDS] [--heartbeat SECONDS] [--metrics-file FILE] [--progress[=json]] [--dry-run] [--json] [--create] [--watch]",
            "serve": "sync-tool serve DIR [--suite SUITE]... [--timeout SECONDS] [--read-only] [--create]",
            "import": "sync-tool import DIR FILE [--progress[=json]] [--dry-run] [--json]",
            "conflicts": "sync-tool conflicts DIR [SUITE] [--json] [--clear]",
            "export": "sync-tool export DIR --out FILE [--since-peer DIR_OR_REPLICA_ID | --all] [--suite SUITE]..."
        ]
        for (command, shape) in shapes {
            let help = try run("sync-tool", [command, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains(shape), "\(command) --help: \(help.stdout)")
        }
        let overview = try run("sync-tool", ["--help"])
        for command in shapes.keys { #expect(overview.stdout.contains("  \(command) "), "\(command) is listed") }
    }

    @Test func usageAndInputErrorsHaveTheirExitCodes() throws {
        let tmp = try TemporaryDirectory("cli")
        defer { tmp.remove() }
        let a = tmp.path("a")
        let b = tmp.path("b")
        #expect(try run("sync-tool", ["set", a, "s", "k", "v"]).status == 0)
        #expect(try run("sync-tool", ["set", b, "s", "k", "w"]).status == 0)
        let cases: [([String], Int32)] = [
            (["sync", a], 2), // missing B
            (["sync", a, b, "--frobnicate"], 2), // unknown flag
            (["export", a], 2), // missing --out
            (["export", a, "--out", tmp.path("x"), "--all", "--since-peer", b], 2),
            (["conflicts"], 2),
            (["sync", a, b, "--suite", "bad name"], 3), // invalid suite name
            (["sync", a, a], 3), // a replica with itself
            (["export", a, "--out", tmp.path("x"), "--since-peer", "nonsense"], 3),
            (["import", a, tmp.path("missing.bundle")], 3),
            (["sync", a, tmp.path("nowhere")], 4), // no store there
            (["conflicts", tmp.path("nowhere")], 4)
        ]
        for (arguments, code) in cases {
            let result = try run("sync-tool", arguments)
            #expect(result.status == code, "\(arguments): \(result.status) \(result.stderr)")
            if code != 0 { #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): one line on stderr: \(result.stderr)") }
        }
        #expect(!FileManager.default.fileExists(atPath: tmp.path("nowhere")), "a failed sync created nothing")
    }

    @Test func twoReplicasDivergeSyncAndConvergeWithAReportedConflict() throws {
        let tmp = try TemporaryDirectory("cli")
        defer { tmp.remove() }
        let a = tmp.path("a")
        let b = tmp.path("b")
        #expect(try run("sync-tool", ["set", a, "prefs", "theme", "dark"]).status == 0)
        #expect(try run("sync-tool", ["set", a, "prefs", "font", "12", "--type", "int"]).status == 0)
        #expect(try run("sync-tool", ["set", b, "prefs", "theme", "light"]).status == 0) // later: wins
        #expect(try run("sync-tool", ["set", b, "other", "x", "1"]).status == 0)

        let plan = try run("sync-tool", ["sync", a, b, "--dry-run", "--json"])
        #expect(plan.status == 10, "changes pending: \(plan.stderr)")
        let planned = try Self.json(plan.stdout)
        #expect(planned["in_sync"] as? Bool == false && planned["dry_run"] as? Bool == true)
        #expect(try run("sync-tool", ["list", b, "prefs"]).lines.count == 1, "the dry run wrote nothing")

        let synced = try run("sync-tool", ["sync", a, b, "--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        let counts = try Self.json(synced.stdout)
        #expect(counts["sent_a_to_b"] as? Int == 2 && counts["sent_b_to_a"] as? Int == 2)
        #expect(counts["records_changed_b"] as? Int == 1, "font; theme lost to B's later write")
        #expect(counts["records_changed_a"] as? Int == 2, "theme and other/x")
        #expect(counts["records_changed"] as? Int == 3)
        #expect(counts["conflicts"] as? Int == 1)
        #expect(counts["clock_skew_warnings"] as? Int == 0)
        #expect(try run("sync-tool", ["list", a]).stdout == (try run("sync-tool", ["list", b])).stdout)
        #expect(try run("sync-tool", ["sync", a, b, "--dry-run"]).status == 0, "in sync now")

        let text = try run("sync-tool", ["sync", a, b])
        #expect(text.lines.contains("conflicts: 0") && text.lines.last == "in sync", "\(text.stdout)")

        for dir in [a, b] {
            let listed = try run("sync-tool", ["conflicts", dir, "--json"])
            #expect(listed.status == 0)
            let entry = try Self.json(try #require(listed.lines.first))
            #expect(entry["key"] as? String == "theme")
            let loser = try #require(entry["loser"] as? [String: Any])
            let winner = try #require(entry["winner"] as? [String: Any])
            #expect(loser["value"] as? String == "dark" && winner["value"] as? String == "light")
            #expect(loser["version"] is String && loser["writer"] is String && loser["origin"] is String)
        }
        let cleared = try run("sync-tool", ["conflicts", a, "prefs", "--clear"])
        #expect(cleared.lines.last == "cleared 1 conflicts" && cleared.lines.count == 2, "\(cleared.stdout)")
        #expect(try run("sync-tool", ["conflicts", a]).lines == ["0 conflicts"])
        #expect(try run("sync-tool", ["conflicts", b]).lines.count == 2, "B keeps its own log")
    }

    @Test func exportAndImportThroughAFile() throws {
        let tmp = try TemporaryDirectory("cli")
        defer { tmp.remove() }
        let a = tmp.path("a")
        let b = tmp.path("b")
        let file = tmp.path("changes.bundle")
        for i in 0..<5 { #expect(try run("sync-tool", ["set", a, "s", "k\(i)", "\(i)", "--type", "int"]).status == 0) }
        #expect(try run("sync-tool", ["set", a, "t", "x", "y"]).status == 0)
        let exported = try run("sync-tool", ["export", a, "--out", file, "--suite", "s"])
        #expect(exported.status == 0 && exported.stdout.hasPrefix("exported 5 changes"), "\(exported.stdout) \(exported.stderr)")

        let dry = try run("sync-tool", ["import", b, file, "--dry-run", "--json"])
        #expect(dry.status == 10, "\(dry.stdout) \(dry.stderr)")
        #expect(try Self.json(dry.stdout)["records_changed"] as? Int == 5)
        #expect(!FileManager.default.fileExists(atPath: b), "a dry run does not even create the replica")
        let imported = try run("sync-tool", ["import", b, file, "--json"])
        #expect(imported.status == 0)
        #expect(try Self.json(imported.stdout)["records_changed"] as? Int == 5)
        let again = try run("sync-tool", ["import", b, file, "--json"])
        #expect(again.status == 0)
        #expect(try Self.json(again.stdout)["records_changed"] as? Int == 0, "importing twice is harmless")
        #expect(try run("sync-tool", ["import", b, file, "--dry-run"]).status == 0, "nothing pending")

        // Only what B lacks: by B's directory, then by B's id (after A heard from B).
        #expect(try run("sync-tool", ["set", a, "s", "k0", "changed"]).status == 0)
        #expect(try run("sync-tool", ["export", a, "--out", file, "--since-peer", b]).stdout.hasPrefix("exported 2 changes"), "k0 and t/x")
        let idB = try Store(path: b).replicaID.description
        #expect(try run("sync-tool", ["export", b, "--out", tmp.path("back"), "--all"]).status == 0)
        #expect(try run("sync-tool", ["import", a, tmp.path("back")]).status == 0)
        #expect(try run("sync-tool", ["export", a, "--out", file, "--since-peer", idB]).stdout.hasPrefix("exported 2 changes"))
        #expect(try run("sync-tool", ["import", b, file]).status == 0)
        #expect(try run("sync-tool", ["sync", a, b, "--dry-run"]).status == 0, "converged through files")
    }

    @Test func concurrentSyncsOfOverlappingReplicasWhileWritersRunLoseAndDuplicateNothing() throws {
        let tmp = try TemporaryDirectory("cli")
        defer { tmp.remove() }
        let dirs = ["a", "b", "c"].map { tmp.path($0) }
        for dir in dirs { _ = try Store(path: dir) }
        let perWriter = 300
        let writers = try zip(dirs, ["wa", "wb", "wc"]).map { dir, prefix in
            try ChildProcess("concord-test-helper", ["write", dir, "s", prefix, String(perWriter)])
        }
        for w in writers { #expect(w.waitForLine { $0.hasPrefix("done") }, "the writers are running") }
        // Two sync-tool loops at once on overlapping pairs (A-B and B-C), while the writers run,
        // until the writers are done and each loop ran at least 6 times.
        let failures = Collector<String>()
        let whileWriting = Collector<Int>()
        let group = DispatchGroup()
        for (x, y) in [(dirs[0], dirs[1]), (dirs[1], dirs[2])] {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var round = 0
                while round < 6 || writers.contains(where: { $0.process.isRunning }) {
                    if writers.contains(where: { $0.process.isRunning }) { whileWriting.append(round) }
                    do {
                        let result = try run("sync-tool", ["sync", x, y, "--json"])
                        if result.status != 0 { failures.append("round \(round) \(x) \(y): \(result.status) \(result.stderr)") }
                    } catch { failures.append("\(error)") }
                    round += 1
                }
            }
        }
        #expect(group.wait(timeout: .now() + 240) == .success)
        for w in writers { #expect(w.wait(timeout: 120).status == 0) }
        #expect(failures.values.isEmpty, "\(failures.values)")
        #expect(whileWriting.count > 0, "no sync overlapped the writers")

        let stores = try dirs.map { try Store(path: $0) }
        try Synchronizer().sync(stores[0], stores[1])
        try Synchronizer().sync(stores[1], stores[2])
        try Synchronizer().sync(stores[0], stores[1])
        var expected: [String: Value] = [:]
        for prefix in ["wa", "wb", "wc"] { for i in 0..<perWriter { expected["\(prefix)-\(i)"] = .int(i) } }
        for store in stores {
            #expect(try store.suite("s").snapshot() == expected, "\(store.directory): every write exactly once")
            #expect(try store.journalEntries(after: 0).count == expected.count, "one journal entry per key: nothing duplicated")
            #expect(try store.conflicts().isEmpty)
            try Replicas.expectSound(store)
        }
    }
}
