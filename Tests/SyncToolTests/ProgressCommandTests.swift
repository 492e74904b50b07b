import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

#if canImport(Glibc)
    import Glibc
#endif

/// `--progress` on the long commands: the JSON lines a script reads (real totals, `done` never going
/// back, the last complete), and the line a person sees on a terminal, captured through a
/// pseudo-terminal by util-linux `script`.
@Suite("sync-tool --progress", .offThePool)
struct ProgressCommandTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("concord-progress") }

    /// `count` keys in suites "one" and "two" (every third in "two"), written in one batch per suite.
    func fill(_ dir: String, count: Int, prefix: String = "k") throws {
        let store = try Store(path: dir)
        let one = try store.suite("one")
        let two = try store.suite("two")
        try one.batch { b in for i in 0..<count where i % 3 != 0 { try b.set("value \(i)", forKey: "\(prefix)\(i)") } }
        try two.batch { b in for i in 0..<count where i % 3 == 0 { try b.set(i, forKey: "\(prefix)\(i)") } }
    }

    /// The progress objects on `stderr`, checked as a script relies on them: one phase, `done` never
    /// going back, the total the same in each, the last with done == total. Returns the total.
    /// With `alone` false, the objects of other phases are left aside (a remote sync sends, then receives).
    func checkedProgress(
        _ stderr: String, phase: String, unit: String, alone: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        let all = try stderr.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let objects = alone ? all : all.filter { $0["phase"] as? String == phase }
        let last = try #require(objects.last, "no progress at all", sourceLocation: sourceLocation)
        var previous = -1
        for o in objects {
            #expect(o["phase"] as? String == phase, sourceLocation: sourceLocation)
            #expect(o["unit"] as? String == unit, sourceLocation: sourceLocation)
            #expect(o["rate"] is NSNumber && o.keys.contains("eta"), "\(o)", sourceLocation: sourceLocation)
            let done = try #require(o["done"] as? Int, sourceLocation: sourceLocation)
            #expect(done >= previous, "done went back: \(stderr)", sourceLocation: sourceLocation)
            previous = done
        }
        let total = try #require(last["total"] as? Int, sourceLocation: sourceLocation)
        #expect(objects.allSatisfy { $0["total"] as? Int == total }, sourceLocation: sourceLocation)
        #expect(last["done"] as? Int == total, sourceLocation: sourceLocation)
        #expect(objects.count <= 2 + 10 * 60, "rate-limited to about ten a second", sourceLocation: sourceLocation)
        return total
    }

    @Test func syncOfTwoDirectoriesCountsTheChangesBothDeltasHold() async throws {
        defer { tmp.remove() }
        let (a, b) = (tmp.path("a"), tmp.path("b"))
        try fill(a, count: 4000)
        try fill(b, count: 700, prefix: "b")
        let journals = Int(try Store(path: a).lastSeq() + Store(path: b).lastSeq())
        let result = try await offThePool { try run("sync-tool", ["sync", a, b, "--json", "--progress=json"], timeout: 600) }
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        // First both journals are read (never synced: every seq of each), then the changes merged.
        let phases = result.stderr.split(separator: "\n").map { $0.contains("\"phase\":\"read\"") ? "read" : "other" }
        #expect(phases.first == "read" && phases.last == "other" && !phases.drop { $0 == "read" }.contains("read"), "\(result.stderr)")
        #expect(try checkedProgress(result.stderr, phase: "read", unit: "seqs", alone: false) == journals)
        let total = try checkedProgress(result.stderr, phase: "sync", unit: "changes", alone: false)
        #expect(total == 4700)
        #expect(total == (report["sent_a_to_b"] as? Int ?? -1) + (report["sent_b_to_a"] as? Int ?? -1))
        // In sync now: a second sync has nothing to merge, and says so as 0 of 0.
        let again = try run("sync-tool", ["sync", a, b, "--progress=json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try checkedProgress(again.stderr, phase: "sync", unit: "changes", alone: false) == 0)
    }

    /// Over ssh each direction counts the seqs of its sender's journal, from the cursor to the last seq
    /// announced: sent first (in batches of 20,000), then received.
    @Test func aRemoteSyncCountsEachDirectionsSeqs() async throws {
        let fx = try RemoteFixture()
        let (a, b) = (fx.path("a"), fx.path("b"))
        try RemoteFixture.fill(try Store(path: a), count: 45_000)
        try RemoteFixture.fill(try Store(path: b), count: 3_000, prefix: "b")
        let result = try await offThePool { try fx.sync(a, fx.remote("b"), ["--json", "--progress=json"], timeout: 600) }
        #expect(result.status == 0, "\(result.stderr)")
        let report = try RemoteFixture.json(result)
        let phases = result.stderr.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["phase"] as? String
        }
        #expect(phases.first == "send" && phases.last == "receive" && Set(phases) == ["send", "receive"], "\(phases)")
        #expect(phases.firstIndex(of: "receive")! > phases.lastIndex(of: "send")!, "one after the other")
        let sent = try checkedProgress(result.stderr, phase: "send", unit: "seqs", alone: false)
        let received = try checkedProgress(result.stderr, phase: "receive", unit: "seqs", alone: false)
        #expect(sent == 45_000 && report["sent_a_to_b"] as? Int == 45_000)
        #expect(report["sent_b_to_a"] as? Int == 3_000)
        // B journaled A's 45,000 changes before it sent its own: its range covers them (left out as echoes).
        #expect(received == Int(try Store(path: b).info().lastSeq), "\(received)")
        #expect(try Store(path: b).info().records == 48_000)
    }

    @Test func exportAndImportCountTheBundlesRecords() async throws {
        defer { tmp.remove() }
        let (a, b, file) = (tmp.path("a"), tmp.path("b"), tmp.path("changes.bundle"))
        try fill(a, count: 3000)
        try await Store(path: a).suite("one").remove("k1") // a tombstone travels as a record too
        let exported = try await offThePool { try run("sync-tool", ["export", a, "--out", file, "--progress=json"], timeout: 600) }
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(try checkedProgress(exported.stderr, phase: "read", unit: "seqs", alone: false) == Int(try Store(path: a).lastSeq()))
        #expect(try checkedProgress(exported.stderr, phase: "export", unit: "records", alone: false) == 3000)
        #expect(exported.stdout.contains("exported 3000 changes"), "\(exported.stdout)")
        let imported = try await offThePool { try run("sync-tool", ["import", b, file, "--json", "--progress=json"], timeout: 600) }
        #expect(imported.status == 0, "\(imported.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])
        #expect(try checkedProgress(imported.stderr, phase: "import", unit: "records") == 3000)
        #expect(report["entries"] as? Int == 3000)
        #expect(try Store(path: b).info().records == 3000)
    }

    @Test func compactingBackupCountsTheBytesOfTheCopy() async throws {
        defer { tmp.remove() }
        let (a, copy) = (tmp.path("a"), tmp.path("copy"))
        try fill(a, count: 3000)
        do {
            let store = try Store(path: a)
            try await store.suite("big").batch { b in for i in 0..<300 { try b.set(Data(repeating: 7, count: 4000), forKey: "blob\(i)") } }
            try await store.suite("big").reset() // their pages go to the free list, which the compacted copy leaves out
        }
        let result = try await offThePool { try run("sync-tool", ["backup", a, copy, "--compact", "--json", "--progress=json"], timeout: 600) }
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let total = try checkedProgress(result.stderr, phase: "backup", unit: "bytes")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: copy + "/data.mdb")[.size] as? Int)
        #expect(total == size)
        #expect(report["bytes"] as? Int == size)
        let original = try #require(try FileManager.default.attributesOfItem(atPath: a + "/data.mdb")[.size] as? Int)
        #expect(size < original, "the compacted copy leaves the free pages out")
    }

    /// What a person sees: one line redrawn in place (carriage return, clear to the end of the line),
    /// finished with the complete count and a newline.
    @Test func aTerminalSeesOneLineRedrawnInPlaceEndingWithTheWholeCount() async throws {
        defer { tmp.remove() }
        let (a, file) = (tmp.path("a"), tmp.path("changes.bundle"))
        try fill(a, count: 2500)
        let command = "'\(Binaries.path("sync-tool"))' export '\(a)' --out '\(file)' --progress"
        let result = try await offThePool { try run("/usr/bin/script", ["-qfec", command, "/dev/null"], timeout: 600) }
        #expect(result.status == 0, "\(result.stdout)")
        let screen = result.stdout
        let redraws = screen.components(separatedBy: "\r\u{1b}[K").count - 1
        #expect(redraws >= 2, "the line is drawn and then redrawn in place: \(screen.debugDescription)")
        #expect(screen.contains("\r\u{1b}[Kexport: 2500/2500 records (100%)"), "\(screen.debugDescription)")
        let finalLine = try #require(screen.range(of: "export: 2500/2500 records"))
        let rest = screen[finalLine.upperBound...]
        #expect(rest.firstIndex(where: \.isNewline).map { !rest[..<$0].contains("\r\u{1b}[K") } == true, "finished with a newline")
        #expect(screen.contains("exported 2500 changes"))
    }

    @Test func notATerminalShowsNoProgressUnlessJSONIsAskedFor() throws {
        defer { tmp.remove() }
        let (a, b) = (tmp.path("a"), tmp.path("b"))
        try fill(a, count: 200)
        for arguments in [["sync", a, b, "--create"], ["sync", a, b, "--progress"]] {
            let result = try run("sync-tool", arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "stderr is a file here: no progress lines (\(arguments))")
            #expect(!result.stdout.contains("\r"))
        }
    }

    @Test func anUnknownStyleIsAUsageError() throws {
        defer { tmp.remove() }
        let a = tmp.path("a")
        try fill(a, count: 10)
        for command in [["export", a, "--out", tmp.path("x"), "--progress=xml"], ["backup", a, tmp.path("c"), "--progress=xml"]] {
            let result = try run("sync-tool", command)
            #expect(result.status == ExitCode.usage.rawValue)
            #expect(result.stderr.contains("unknown --progress style 'xml'"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: tmp.path("x")))
        #expect(!FileManager.default.fileExists(atPath: tmp.path("c")))
        // A watch has no end to count towards, and a relay no local replica: said at once, exit 2.
        let watching = Invocation(["sync", a, tmp.path("b"), "--watch", "--progress"])
        #expect(watching.status == ExitCode.usage.rawValue)
        #expect(watching.err.joined().contains("--progress"), "\(watching.err)")
        let help = Invocation(["export", "--help"]).out.joined(separator: "\n")
        #expect(help.contains("--progress[=json]"))
    }

    /// The library's own handler, as an app would use it: the same values the CLI renders.
    @Test func theLibraryReportsToTheHandlerGivenToTheOperation() throws {
        defer { tmp.remove() }
        let (a, b) = (tmp.path("a"), tmp.path("b"))
        try fill(a, count: 2048)
        let seen = Collector<WorkProgress>()
        var synchronizer = Synchronizer()
        synchronizer.onProgress = { seen.append($0) }
        let report = try synchronizer.sync(try Store(path: a), try Store(path: b))
        #expect(seen.values.first?.done == 0)
        #expect(seen.values.last == WorkProgress(phase: "sync", done: 2048, total: 2048, unit: "changes"))
        #expect(report.aToB.entries == 2048)
        #expect(zip(seen.values, seen.values.dropFirst()).allSatisfy { $0.phase != $1.phase || $0.done <= $1.done })
        #expect(seen.values.map(\.phase).filter { $0 == "read" }.count >= 2, "the read comes first, 0 and then complete")
    }
}
