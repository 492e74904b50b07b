import Foundation
import TestSupport
import Testing

@testable import Concord

@Suite("Many processes on one replica", .offThePool)
struct MultiProcessTests {
    @Test func fourProcessesWritingDistinctKeysLoseNothing() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let writers = try (0..<4).map { w in try ChildProcess("concord-test-helper", ["write", dir, "app", "w\(w)", "250"]) }
        for w in writers { #expect(w.wait().status == 0) }
        let suite = try Store(path: dir).suite("app")
        #expect(try suite.keys().count == 1000)
        for w in 0..<4 { for i in [0, 137, 249] { #expect(try suite.get("w\(w)-\(i)", as: Int.self) == i) } }
        #expect(try suite.store.integrityReport().isSound)
    }

    @Test func fourProcessesIncrementingOneCounterCountEveryIncrement() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("r")
        _ = try Store(path: dir)
        let writers = try (0..<4).map { _ in try ChildProcess("concord-test-helper", ["incr", dir, "app", "counter", "250"]) }
        var seen: [Int] = []
        for w in writers {
            let result = w.wait()
            #expect(result.status == 0)
            seen += result.lines.compactMap(Int.init)
        }
        #expect(try Store(path: dir).suite("app").get("counter", as: Int.self) == 1000)
        // Every value from 1 to 1,000 was handed out exactly once.
        #expect(seen.sorted() == Array(1...1000))
    }

    @Test func theSyncToolIncrementIsAtomicToo() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let script = "for i in $(seq 1 25); do \(Binaries.path("sync-tool")) incr \(dir) app n >/dev/null || exit 1; done"
        let shells = try (0..<4).map { _ in try ChildProcess("/bin/sh", ["-c", script]) }
        for s in shells { #expect(s.wait().status == 0) }
        #expect(try run("sync-tool", ["get", dir, "app", "n"]).stdout == "100\n")
    }

    @Test func aWriterKilledAtRandomMomentsLosesNoAcknowledgedWrite() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("r")
        var generator = SeededRandom(seed: 0xC0FFEE)
        var acknowledged: [Int: Int] = [:] // round -> last acknowledged index
        let rounds = 50
        for round in 0..<rounds {
            let writer = try ChildProcess("concord-test-helper", ["write-forever", dir, "app", "r\(round)"])
            // Let it start and write a little, then kill it at a random moment.
            _ = writer.waitForLine(timeout: 20) { $0.hasPrefix("done") }
            usleep(UInt32.random(in: 0...30_000, using: &generator))
            writer.kill()
            writer.wait()
            let done = writer.completeLines.compactMap { line -> Int? in
                line.hasPrefix("done ") ? Int(line.dropFirst(5)) : nil
            }
            acknowledged[round] = done.max() ?? -1
        }
        // The writer really was killed mid-stream, with acknowledged writes behind it, in most rounds.
        #expect(acknowledged.values.filter { $0 >= 0 }.count >= rounds / 2)
        let store = try Store(path: dir)
        let report = try store.integrityReport()
        #expect(report.isSound, "check found: \(report.problems)")
        let suite = try store.suite("app")
        for (round, last) in acknowledged where last >= 0 {
            for i in 0...last {
                #expect(try suite.get("r\(round)-\(i)", as: String.self)?.hasPrefix("\(i)-") == true, "round \(round) lost write \(i)")
            }
            let recorded = try #require(try suite.get("r\(round)-last", as: Int.self))
            #expect(recorded >= last)
        }
        // Every record has its journal entry and every entry its record (check), one per key.
        #expect(report.journalEntriesChecked == report.recordsChecked)
    }

    @Test func theMapGrowsWhileOtherProcessesReadAndWrite() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("r")
        let small = ["CONCORD_INITIAL_MAP_SIZE": String(256 << 10)]
        var options = Store.Options()
        options.initialMapSize = 256 << 10
        let store = try Store(path: dir, options: options)
        let suite = try store.suite("app")
        try suite.set("here", forKey: "probe")
        let initialMap = try store.info().mapBytes
        let reader = try ChildProcess("concord-test-helper", ["read-loop", dir, "app", "probe", "6"], environment: small)
        let growers = try (0..<3).map { g in
            try ChildProcess("concord-test-helper", ["grow", dir, "app", "g\(g)", "150", "8192"], environment: small)
        }
        // This process writes too, while the others grow the map under it.
        for i in 0..<150 { try suite.set(Data(repeating: 7, count: 8192), forKey: "main-\(i)") }
        for g in growers {
            let result = g.wait()
            #expect(result.status == 0, "grower failed: \(result.stderr)")
            #expect(result.stdout.contains("ok 150"))
        }
        let read = reader.wait()
        #expect(read.status == 0, "reader failed: \(read.stderr)")
        #expect(read.stdout.hasPrefix("reads "))
        #expect(try suite.keys().count == 601)
        let info = try store.info()
        #expect(info.mapBytes > initialMap, "the map should have grown from \(initialMap)")
        #expect(info.mapUsedBytes > 600 * 8192 && info.mapUsedBytes <= info.mapBytes, "\(info)")
        #expect(try store.integrityReport().isSound)
    }
}
