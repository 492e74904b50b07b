import Foundation
import TestSupport
import Testing

/// Processes killed (SIGKILL) in the middle of a transaction: the next process goes on, nothing
/// half-written is visible, and a dead reader's slot is cleared so the file stops growing.
@Suite(.offThePool) struct StaleProcessTests {
    @Test func writerKilledInsideItsTransactionDoesNotBlockTheNextOne() throws {
        let tmp = try TemporaryDirectory("concord-killed-writer")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        for i in 0..<5 { try #require(run("sync-tool", ["set", dir, "app", "before-\(i)", "v\(i)"], timeout: 60).exited(0)) }

        let holder = try ChildProcess("concord-test-helper", ["hold-write", dir, "app", "uncommitted"])
        try #require(holder.waitForLine { $0 == "in-write" }, "the helper holds the write lock: \(holder.errorOutput)")
        // A process that starts now waits for the write lock the holder has: given 300 ms, it has
        // neither finished nor written.
        let waiting = try ChildProcess("sync-tool", ["set", dir, "app", "next", "proceeded"])
        usleep(300_000)
        let waitedWhileHeld = waiting.process.isRunning
        #expect(waitedWhileHeld, "a writer started while another holds the write lock waits for it: \(waiting.errorOutput)")
        #expect(try StoreContents.list(dir, suite: "app")["next"] == nil, "nothing is written while the holder has the write lock")
        let killedAt = ContinuousClock.now
        holder.kill()
        holder.process.waitUntilExit()
        let next = waiting.wait(timeout: 30)
        let afterKill = ChildProcess.milliseconds(since: killedAt)
        #expect(next.exited(0), "the waiting writer proceeds once the holder is killed: \(next)")

        try StoreContents.expectSound(dir)
        let stored = try StoreContents.list(dir, suite: "app")
        #expect(stored["next"] == "proceeded")
        #expect(stored["uncommitted"] == nil, "the killed transaction left nothing behind")
        for i in 0..<5 { #expect(stored["before-\(i)"] == "v\(i)") }
        figure(
            "killed writer",
            "a writer blocked behind the holder; it finished \(Int(afterKill)) ms after the holder was killed with SIGKILL"
        )
    }

    /// Writers (each commit fsynced) killed at seeded random moments, mostly inside a commit: after every
    /// kill the store passes check and holds every write the killed process saw acknowledged.
    @Test func writersKilledAtRandomMomentsLoseNoAcknowledgedWrite() throws {
        let tmp = try TemporaryDirectory("concord-killed-writers")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let seed: UInt64 = 0xC0FFEE
        var random = SeededRandom(seed: seed)
        var acknowledged: [(round: Int, count: Int)] = []
        var nextProcess: [Double] = []
        for round in 0..<8 {
            let writer = try ChildProcess("concord-test-helper", ["write-forever", dir, "app", "r\(round)"])
            try #require(writer.waitForLine { $0.hasPrefix("done ") }, "writer \(round): \(writer.errorOutput)")
            usleep(UInt32.random(in: 2_000...40_000, using: &random))
            writer.kill()
            writer.process.waitUntilExit()
            let done = writer.completeLines.filter { $0.hasPrefix("done ") }.count
            acknowledged.append((round, done))
            let check = try run("sync-tool", ["check", dir], timeout: 30)
            #expect(check.exited(0), "check after killing writer \(round) (seed \(seed)): \(check)")
            nextProcess.append(check.milliseconds)
        }
        let stored = try StoreContents.list(dir, suite: "app")
        let payload = String(repeating: "x", count: 200)
        for (round, count) in acknowledged {
            for i in 0..<count {
                #expect(stored["r\(round)-\(i)"] == "\(i)-\(payload)", "round \(round): acknowledged write \(i) is stored")
            }
            let last = stored["r\(round)-last"].flatMap(Int.init) ?? -1
            #expect(last >= count - 1, "round \(round): the last value is at least the last acknowledged one (\(last), \(count - 1))")
        }
        let total = acknowledged.reduce(0) { $0 + $1.count }
        figure(
            "writers killed at random",
            "8 writers killed after 2-40 ms (seed \(seed)), \(total) acknowledged batches all present; check after each kill took \(Int(nextProcess.min() ?? 0))-\(Int(nextProcess.max() ?? 0)) ms (process start included)"
        )
    }

    @Test func readerKilledWhileReadingDoesNotHoldUpTheNextProcess() throws {
        let tmp = try TemporaryDirectory("concord-killed-reader")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        for i in 0..<5 { try #require(run("sync-tool", ["set", dir, "app", "before-\(i)", "v\(i)"], timeout: 60).exited(0)) }
        let reader = try ChildProcess("concord-test-helper", ["hold-read", dir])
        try #require(reader.waitForLine { $0 == "holding" }, "reader: \(reader.errorOutput)")
        reader.kill()
        reader.process.waitUntilExit()
        let write = try run("sync-tool", ["set", dir, "app", "after", "written"], timeout: 30)
        #expect(write.exited(0), "a new process writes right after the reader was killed: \(write)")
        let read = try run("sync-tool", ["get", dir, "app", "before-4"], timeout: 30)
        #expect(read.exited(0) && read.stdout == "v4\n", "and reads: \(read)")
        try StoreContents.expectSound(dir)
        figure(
            "killed reader",
            "the next process wrote in \(Int(write.milliseconds)) ms after the kill (process start included), the one after read in \(Int(read.milliseconds)) ms"
        )
    }

    /// The writer opened the store before the reader died, so only its check every 1,024 writes can free the slot.
    @Test func readerKilledWhileReadingLetsTheFileStopGrowing() throws {
        let tmp = try TemporaryDirectory("concord-killed-reader")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let control = tmp.path("control")
        try FileManager.default.createDirectory(atPath: control, withIntermediateDirectories: true)
        let liveWrites = 500
        let laterWrites = 100_000

        // The writer opens the store first, so only its periodic reader check (every 1,024 writes) can
        // notice the dead reader, not the check every open does.
        let writer = try ChildProcess("concord-test-helper", ["write-many", dir, "app", "100", control, "\(liveWrites),\(laterWrites)"])
        try #require(writer.waitForLine { $0.hasPrefix("ready") }, "writer: \(writer.errorOutput)")
        let reader = try ChildProcess("concord-test-helper", ["hold-read", dir])
        try #require(reader.waitForLine { $0 == "holding" }, "reader: \(reader.errorOutput)")

        // While the reader lives, its snapshot pins pages: the file grows with every write.
        let startBytes = try #require(Int(writer.completeLines.first { $0.hasPrefix("ready") }!.split(separator: " ")[1]))
        _ = FileManager.default.createFile(atPath: control + "/go-0", contents: nil)
        try #require(writer.waitForLine(timeout: 120) { $0.hasPrefix("phase 0 writes \(liveWrites) ") }, "writer: \(writer.errorOutput)")
        let liveBytes = try bytes(in: writer, phase: 0, writes: liveWrites)

        // No other process opens the store from here on (opening clears dead readers too).
        reader.kill()
        reader.process.waitUntilExit()
        let laterStart = ContinuousClock.now
        _ = FileManager.default.createFile(atPath: control + "/go-1", contents: nil)
        let result = writer.wait(timeout: 150)
        let laterMilliseconds = ChildProcess.milliseconds(since: laterStart)
        try #require(result.exited(0), "writer: \(result)")
        let at10k = try bytes(in: writer, phase: 1, writes: 10_000)
        let final = try bytes(in: writer, phase: 1, writes: laterWrites)

        let page = 4096
        #expect(
            liveBytes - startBytes >= liveWrites * page,
            "calibration: a live reader makes the file grow by at least a page per write (grew \(liveBytes - startBytes) bytes)")
        #expect(
            final - at10k <= 64 * page,
            "after the dead reader's slot is cleared, 90,000 more writes reuse pages instead of growing the file (grew \(final - at10k) bytes)")
        try StoreContents.expectSound(dir)
        figure(
            "killed reader, file size",
            "data.mdb: \(startBytes >> 10) KiB, \(liveBytes >> 10) KiB after \(liveWrites) writes with a live reader, \(at10k >> 10) KiB after 10,000 writes with the reader killed, \(final >> 10) KiB after \(laterWrites) (\(Int(laterMilliseconds)) ms for them)"
        )
    }

    /// The size of data.mdb the writer printed after `writes` writes of `phase`.
    private func bytes(in writer: ChildProcess, phase: Int, writes: Int) throws -> Int {
        let line = try #require(
            writer.completeLines.first { $0.hasPrefix("phase \(phase) writes \(writes) ") },
            "no progress line for \(writes) writes: \(writer.output.suffix(300))")
        return try #require(Int(line.split(separator: " ").last!))
    }
}
