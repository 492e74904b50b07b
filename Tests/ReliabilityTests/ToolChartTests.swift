import Foundation
import TestSupport
import Testing

/// `bench --svg` and `stress-test --timeline`: the charts a reader opens instead of the table. Each
/// runs the real tool, then renders its SVG with rsvg-convert and with headless Chromium and checks
/// the pictures are there (PNGs of the SVG's size, far from blank) and say what they must: the
/// workloads, the systems, the goals, the invariants' verdict.
@Suite(.offThePool) struct ToolChartTests {
    static func scratch() throws -> String {
        let dir = NSTemporaryDirectory() + "/concord-charts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Renders `svg` both ways and checks each picture holds far more than a blank page of its size.
    static func expectRendered(_ svg: String, in dir: String) throws {
        let (width, height, _) = try SVGRendering.contents(svg)
        #expect(width >= 800 && height >= 400, "the chart is \(width) × \(height)")
        try SVGRendering.blank(width: width, height: height, at: dir + "/blank.svg")

        let png = try SVGRendering.rsvg(svg, to: dir + "/chart-rsvg.png")
        let blank = try SVGRendering.rsvg(dir + "/blank.svg", to: dir + "/blank-rsvg.png")
        #expect(png.width == width && png.height == height, "rsvg-convert drew \(png.width) × \(png.height)")
        #expect(png.bytes > 4 * blank.bytes, "rsvg-convert's PNG is \(png.bytes) bytes, a blank one \(blank.bytes)")

        let shot = try SVGRendering.chromium(svg, to: dir + "/chart-chromium.png", width: width, height: height)
        let blankShot = try SVGRendering.chromium(dir + "/blank.svg", to: dir + "/blank-chromium.png", width: width, height: height)
        #expect(shot.width == width && shot.height == height, "Chromium's screenshot is \(shot.width) × \(shot.height)")
        #expect(shot.bytes > 4 * blankShot.bytes, "Chromium's PNG is \(shot.bytes) bytes, a blank one \(blankShot.bytes)")
    }

    @Test("bench --quick --svg draws every workload it ran, each system, the goals and the axis; --report draws the saved run the same")
    func benchChart() async throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let svg = dir + "/report.svg"
        let json = dir + "/report.json"
        let result = try await offThePool {
            try run("bench", ["--quick", "--only", "point-read,durable-set", "--svg", svg, "--save", json], timeout: 600)
        }
        try #require(result.status == 0, "bench failed: \(result.stderr.suffix(2_000))")
        #expect(try SVGRendering.wellFormed(svg) == nil)
        let texts = try SVGRendering.contents(svg).texts
        for label in ["1 typed point read", "2 durable single-key set", "Concord", "raw LMDB", "UserDefaults", "SQLite", "min – max over the runs"] {
            #expect(texts.contains(label), "the chart has no text '\(label)'")
        }
        #expect(texts.contains { $0.hasPrefix("× = times slower than the fastest") }, "the chart has no axis title")
        #expect(texts.contains { $0.hasPrefix("String, 1,000 keys") }, "the chart has no scenario heading")
        // Every goal the table lists is on the chart, with its verdict.
        let table = result.stdout
        let goals = table.split(separator: "\n").filter { $0.hasPrefix("| typed get") || $0.hasPrefix("| durable set") }
        #expect(goals.count >= 4, "the table lists \(goals.count) goals")
        for row in goals {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(texts.contains { $0.hasPrefix("goal \(cells[2]): \(cells[0])") }, "the chart does not show the goal '\(cells[0])' as \(cells[2])")
        }
        try Self.expectRendered(svg, in: dir)

        // The saved run, drawn again without measuring: the same chart, the same table.
        let again = dir + "/again.svg"
        let redraw = try await offThePool { try run("bench", ["--report", json, "--svg", again]) }
        #expect(redraw.status == 0, "bench --report failed: \(redraw.stderr)")
        #expect(try String(contentsOfFile: again, encoding: .utf8) == String(contentsOfFile: svg, encoding: .utf8))
        #expect(redraw.stdout.split(separator: "\n").dropFirst().elementsEqual(table.split(separator: "\n").dropFirst()))
    }

    @Test("a report whose names hold <, & and quotes still draws a well-formed chart that shows them as written")
    func benchChartEscapesText() async throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = dir + "/report.json"
        let hostile = "1 <typed> read & \"quoted\" 'too'"
        let report: [String: Any] = [
            "machine": ["date": "2026-12-02T00:00:00Z", "cores": 2, "cpu": "a <cpu> & more", "memoryGiB": 24, "kernel": "Linux 6", "loadAverage": "1 1 1"],
            "quick": true, "defaultRuns": 3, "seconds": 1.5,
            "workloads": [["name": "point-read", "title": hostile]],
            "figures": [
                Self.figure(subject: "Concord", samples: [400, 410, 430]),
                Self.figure(subject: "raw <LMDB> & co", samples: [200, 210, 220])
            ],
            "goals": [
                [
                    "goal": "get <= 2× & \"fast\"", "measured": "2.0×", "value": 2.0, "verdict": "met",
                    "mark": ["workload": "point-read", "scenario": "String, 1,000 keys", "metric": "per read", "subject": "Concord", "threshold": 420]
                ]
            ],
            "failures": []
        ]
        try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: json))
        let svg = dir + "/chart.svg"
        let result = try await offThePool { try run("bench", ["--report", json, "--svg", svg]) }
        try #require(result.status == 0, "bench --report failed: \(result.stderr)")
        #expect(try SVGRendering.wellFormed(svg) == nil)
        let texts = try SVGRendering.contents(svg).texts
        #expect(texts.contains(hostile))
        #expect(texts.contains("raw <LMDB> & co"))
        #expect(texts.contains { $0.hasPrefix("goal met: get <= 2× & \"fast\"") })
        #expect(try SVGRendering.rsvg(svg, to: dir + "/chart.png").bytes > 0)
    }

    static func figure(subject: String, samples: [Double]) -> [String: Any] {
        let sorted = samples.sorted()
        return [
            "workload": "point-read", "scenario": "String, 1,000 keys", "subject": subject, "metric": "per read", "unit": "ns/op",
            "summary": ["median": sorted[sorted.count / 2], "min": sorted[0], "max": sorted[sorted.count - 1], "runs": samples.count, "samples": samples]
        ]
    }

    @Test("bench refuses a --report that is not a report (exit 3) and an --svg it cannot write before measuring (exit 4), naming the file")
    func benchChartErrors() async throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: dir + "/bad.json"))
        let bad = try await offThePool { try run("bench", ["--report", dir + "/bad.json", "--svg", dir + "/x.svg"]) }
        #expect(bad.status == 3)
        #expect(bad.stderr.contains(dir + "/bad.json") && bad.stderr.contains("not a bench report"), "stderr: \(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.svg"))

        let missing = try await offThePool { try run("bench", ["--report", dir + "/none.json"]) }
        #expect(missing.status == 3)
        #expect(missing.stderr.contains(dir + "/none.json"), "stderr: \(missing.stderr)")

        let unwritable = try await offThePool { try run("bench", ["--quick", "--svg", dir + "/no/such/dir/chart.svg"]) }
        #expect(unwritable.status == 4)
        #expect(unwritable.stderr.contains(dir + "/no/such/dir"), "stderr: \(unwritable.stderr)")
        #expect(unwritable.stdout.isEmpty, "bench measured before finding it could not write the chart")

        let both = try await offThePool { try run("bench", ["--report", dir + "/bad.json", "--only", "point-read"]) }
        #expect(both.status == 2)
    }

    @Test("stress-test --timeline draws the run: each operation kind, the sync, kill and restore lanes with the run's own counts, and the verdict")
    func stressTimeline() async throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let svg = dir + "/timeline.svg"
        let result = try await offThePool {
            try run("stress-test", ["--seconds", "4", "--kill-rate", "2", "--restore-rate", "0.5", "--seed", "7", "--json", "--timeline", svg], timeout: 600)
        }
        try #require(result.status == 0, "stress-test failed: \(result.stdout) \(result.stderr.suffix(2_000))")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(try SVGRendering.wellFormed(svg) == nil)
        let texts = try SVGRendering.contents(svg).texts
        for kind in ["set", "delete", "incr", "claim", "reset"] {
            #expect(texts.contains { $0.hasPrefix(kind + " (") }, "the legend has no '\(kind)'")
        }
        let kills = try #require(summary["kills"] as? Int)
        #expect(
            texts.contains("kills (SIGKILL) (\(kills))"), "the kill lane does not count the run's \(kills) kills: \(texts.filter { $0.hasPrefix("kills") })")
        let backups = try #require(summary["backups"] as? Int)
        let restores = try #require(summary["restores"] as? Int)
        #expect(texts.contains("backups, restores (\(backups + restores))"), "\(texts.filter { $0.hasPrefix("backups") })")
        #expect(texts.contains("failures (0)"))
        #expect(texts.contains { $0.hasPrefix("OK: every invariant held") })
        #expect(texts.contains("seconds since the workers started") && texts.contains("operations per second"))
        try Self.expectRendered(svg, in: dir)
    }

    @Test("a run that breaks (a replica's files deleted under its workers) shows where: failure marks, the moment of each, and FAILED")
    func stressTimelineFailure() async throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let world = dir + "/world"
        let svg = dir + "/timeline.svg"
        let child = try ChildProcess("stress-test", ["--seconds", "6", "--dir", world, "--seed", "3", "--json", "--timeline", svg])
        let result = try await offThePool { () -> ProcessResult in
            // Once the watch's workers have logged operations, an operator deletes its data and lock files.
            let deadline = Date().addingTimeInterval(120)
            func logged() -> Bool {
                let logs = (try? FileManager.default.contentsOfDirectory(atPath: world)) ?? []
                return logs.contains { name in
                    name.hasPrefix("worker-") && ((try? String(contentsOfFile: world + "/" + name, encoding: .utf8))?.count ?? 0) > 2_000
                }
            }
            while !logged() && Date() < deadline { usleep(20_000) }
            for file in ["data.mdb", "lock.mdb"] { try? FileManager.default.removeItem(atPath: world + "/watch/" + file) }
            return child.wait(timeout: 600)
        }
        #expect(result.status == 1, "stress-test exited \(result.status): \(result.stderr.suffix(2_000))")
        #expect(try SVGRendering.wellFormed(svg) == nil)
        let texts = try SVGRendering.contents(svg).texts
        #expect(texts.contains { $0.hasPrefix("FAILED: an invariant did not hold") })
        let lane = try #require(texts.first { $0.hasPrefix("failures (") })
        #expect(lane != "failures (0)")
        #expect(texts.contains { $0.hasPrefix("Where it failed") })
        // Each failure with its moment, e.g. "2.42 s — worker failed: worker 4 (watch) exited with status 4".
        let moments = texts.filter { $0.contains(" s — ") && ($0.contains("worker failed") || $0.contains("failure")) }
        #expect(!moments.isEmpty, "no failure with its moment: \(texts.suffix(12))")
        try Self.expectRendered(svg, in: dir)
    }

    @Test("stress-test refuses a --timeline it cannot write before running (exit 3), naming the file")
    func stressTimelineUnwritable() async throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await offThePool { try run("stress-test", ["--seconds", "30", "--timeline", dir + "/missing/timeline.svg"]) }
        #expect(result.status == 3)
        #expect(result.stderr.contains(dir + "/missing"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
