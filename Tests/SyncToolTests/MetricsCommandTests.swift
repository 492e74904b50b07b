import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

#if canImport(Glibc)
    import Glibc
#endif

/// `sync-tool stat --prometheus` and `sync --watch --metrics-file`: what Prometheus (through
/// node_exporter's textfile collector) scrapes, checked by Prometheus's own `promtool`.
@Suite("sync-tool metrics", .offThePool)
struct MetricsCommandTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("concord-metrics") }

    /// `promtool check metrics` on `text`: its exit status and what it said.
    func promtool(_ text: String) throws -> ProcessResult {
        let file = tmp.path("check-\(UUID().uuidString).prom")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try run("/bin/sh", ["-c", "exec /usr/bin/promtool check metrics < '\(file)'"])
    }

    /// The samples of `text` as "name{labels}" → value.
    static func samples(_ text: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            out[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        return out
    }

    func stat(_ dir: String, _ format: String) throws -> ProcessResult {
        let result = try run("sync-tool", ["stat", dir, format])
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    @Test func statPrintsWhatPromtoolAcceptsWithTheFiguresOfStatJSON() throws {
        defer { tmp.remove() }
        let (a, b) = (tmp.path("a"), tmp.path("b"))
        do {
            let (sa, sb) = (try Store(path: a), try Store(path: b))
            try sa.suite("prefs").batch { w in for i in 0..<40 { try w.set(i, forKey: "k\(i)") } }
            try sb.suite("prefs").set("b's", forKey: "same")
            try sa.suite("prefs").set("a's", forKey: "same") // concurrent with b's: a conflict at the sync
            try Synchronizer().sync(sa, sb)
            try sa.suite("prefs").batch { w in for i in 0..<7 { try w.set("new", forKey: "after\(i)") } }
            try sa.suite("prefs").remove("k0")
        }
        let text = try stat(a, "--prometheus").stdout
        let check = try promtool(text)
        #expect(check.status == 0, "promtool: \(check.stdout) \(check.stderr)\n\(text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try stat(a, "--json").stdout.utf8)) as? [String: Any])
        let replica = try #require(json["replica"] as? String)
        let peerID = try Store(path: b).replicaID.description
        let s = Self.samples(text)
        let me = "replica=\"\(replica)\""
        #expect(s["concord_records{\(me)}"] == Double(try #require(json["records"] as? Int)))
        #expect(s["concord_records{\(me)}"] == 48)
        #expect(s["concord_tombstones{\(me)}"] == 1)
        #expect(s["concord_journal_entries{\(me)}"] == Double(try #require(json["journal_entries"] as? Int)))
        let map = try #require(json["map"] as? [String: Any])
        #expect(s["concord_map_size_bytes{\(me)}"] == Double(try #require(map["map_bytes"] as? Int)))
        #expect(s["concord_map_used_bytes{\(me)}"] == Double(try #require(map["used_bytes"] as? Int)))
        #expect(s["concord_readers{\(me)}"] != nil)
        let peers = try #require(json["peers"] as? [[String: Any]])
        #expect(peers.count == 1)
        let peer = try #require(peers.first)
        #expect(peer["peer"] as? String == peerID)
        let labels = "\(me),peer=\"\(peerID)\""
        // B has not merged the seven new keys and the delete.
        #expect(peer["pending_changes"] as? Int == 8)
        #expect(s["concord_peer_pending_changes{\(labels)}"] == 8)
        #expect(s["concord_peer_conflicts{\(labels)}"] == 1)
        #expect(peer["conflicts"] as? Int == 1)
        let lastSync = try #require(s["concord_peer_last_sync_timestamp_seconds{\(labels)}"])
        #expect(abs(lastSync - Date().timeIntervalSince1970) < 3600, "unix seconds, of the sync just made")
        #expect((peer["last_sync"] as? Double).map { abs($0 - lastSync) < 0.01 } == true)
        for name in ["concord_records", "concord_peer_pending_changes", "concord_map_size_bytes"] {
            #expect(text.contains("# HELP \(name) ") && text.contains("# TYPE \(name) gauge\n"))
        }
        // Once B is synced, nothing is pending for it.
        #expect(try run("sync-tool", ["sync", a, b]).status == 0)
        #expect(Self.samples(try stat(a, "--prometheus").stdout)["concord_peer_pending_changes{\(labels)}"] == 0)
    }

    @Test func labelValuesAreEscaped() throws {
        defer { tmp.remove() }
        let dir = tmp.path("quote\"back\\slash")
        #expect(Invocation(["set", dir, "prefs", "k", "1"]).status == 0)
        let text = try stat(dir, "--prometheus").stdout
        let check = try promtool(text)
        #expect(check.status == 0, "promtool: \(check.stdout) \(check.stderr)\n\(text)")
        #expect(text.contains("directory=\"\(tmp.path("quote\\\"back\\\\slash"))\"} 1\n"), "\(text)")
        #expect(PrometheusText.escapeLabel("a\"b\\c\nd") == "a\\\"b\\\\c\\nd")
        var p = PrometheusText()
        p.family("concord_test", "line one\nline two", labels: [("peer", "x\ny")], 1)
        #expect(try promtool(p.text).status == 0, "\(p.text)")
    }

    @Test func aWatchKeepsTheMetricsFileCurrentReplacingItWhole() async throws {
        defer { tmp.remove() }
        let (a, b, file) = (tmp.path("a"), tmp.path("b"), tmp.path("textfile/concord.prom"))
        try FileManager.default.createDirectory(atPath: tmp.path("textfile"), withIntermediateDirectories: true)
        #expect(Invocation(["set", a, "prefs", "seed", "1"]).status == 0)
        #expect(Invocation(["set", b, "prefs", "theirs", "1"]).status == 0)
        let watch = try ChildProcess("sync-tool", ["sync", a, b, "--watch", "--heartbeat", "60", "--metrics-file", file])
        defer {
            watch.kill()
            watch.wait(timeout: 10)
        }
        let replica = try Store(path: a).replicaID.description
        let key = "concord_records{replica=\"\(replica)\"}"
        let partial = Collector<String>()
        /// Reads the file until `predicate` holds of its samples (or 60 s pass); every read must be a whole file.
        func waitFor(_ predicate: @escaping @Sendable ([String: Double]) -> Bool) async throws -> String? {
            try await offThePool {
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline {
                    if let text = try? String(contentsOfFile: file, encoding: .utf8) {
                        if !(text.hasSuffix("\n") && text.hasPrefix("# HELP concord_replica_info")) { partial.append(text) }
                        if predicate(Self.samples(text)) { return text }
                    }
                    usleep(50_000)
                }
                return nil
            }
        }
        let first = try #require(try await waitFor { $0[key] == 2 }, "the first round merged b's key: \(watch.errorOutput)")
        #expect(try promtool(first).status == 0)
        // A change on the peer shows in the file once the watch merged it.
        #expect(Invocation(["set", b, "prefs", "later", "2"]).status == 0)
        let second = try #require(try await waitFor { $0[key] == 3 }, "the change on b reached the file: \(watch.errorOutput)")
        #expect(try promtool(second).status == 0)
        watch.kill(SIGINT)
        let ended = try await offThePool { watch.wait(timeout: 60) }
        #expect(ended.status == 0, "\(ended.stderr)")
        let last = try String(contentsOfFile: file, encoding: .utf8)
        #expect(Self.samples(last)[key] == 3)
        #expect(partial.values.isEmpty, "every read found a whole file: \(partial.values)")
        #expect(try promtool(last).status == 0)
        #expect(!FileManager.default.fileExists(atPath: file + ".tmp"), "the temporary file was renamed into place")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path("textfile")) == ["concord.prom"])
    }

    @Test func aMetricsFileNeedsAWatchAndAWritableDirectory() throws {
        defer { tmp.remove() }
        let (a, b) = (tmp.path("a"), tmp.path("b"))
        #expect(Invocation(["set", a, "prefs", "k", "1"]).status == 0)
        let noWatch = Invocation(["sync", a, b, "--create", "--metrics-file", tmp.path("m.prom")])
        #expect(noWatch.status == ExitCode.usage.rawValue)
        #expect(noWatch.err.joined().contains("--metrics-file"))
        let nowhere = try run("sync-tool", ["sync", a, b, "--create", "--watch", "--metrics-file", tmp.path("missing/m.prom")], timeout: 60)
        #expect(nowhere.status == ExitCode.invalidInput.rawValue, "\(nowhere.stderr)")
        #expect(nowhere.stderr.contains("missing/m.prom.tmp"), "\(nowhere.stderr)")
        let both = Invocation(["stat", a, "--json", "--prometheus"])
        #expect(both.status == ExitCode.usage.rawValue)
    }
}
