import Concord
import Foundation
import TestSupport
import Testing

/// What a progress handler can rely on: `done` never goes back, updates are spaced, and the phase
/// ends with one update where `done == total` — also when the real total is known only at the end
/// (a compacted copy's size), and never when the work failed.
@Suite struct WorkProgressTests {
    @Test func updatesAreSpacedAndTheLastIsComplete() {
        let seen = Collector<WorkProgress>()
        let meter = ProgressMeter({ seen.append($0) }, phase: "export", total: 10_000, unit: "records", interval: .seconds(3600))
        meter.update(0)
        for done in stride(from: 100, through: 9_900, by: 100) { meter.update(done) }
        meter.update(50) // behind: ignored
        meter.finish()
        meter.finish() // once
        #expect(seen.values.map(\.done) == [0, 10_000])
        #expect(seen.values.last == WorkProgress(phase: "export", done: 10_000, total: 10_000, unit: "records"))
    }

    @Test func aTotalKnownOnlyAtTheEndStillEndsComplete() {
        let seen = Collector<WorkProgress>()
        let meter = ProgressMeter({ seen.append($0) }, phase: "backup", total: 90_000, unit: "bytes", interval: .seconds(3600))
        meter.update(0)
        meter.update(61_440) // the whole copy, seen before the meter learns its size (spaced out: not reported)
        meter.finish(total: 61_440)
        #expect(seen.values.map(\.done) == [0, 61_440])
        #expect(seen.values.last?.isComplete == true && seen.values.last?.total == 61_440)
    }

    @Test func aFailedCopyNeverSaysItIsComplete() throws {
        let tmp = try TemporaryDirectory("concord-progress")
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("a"))
        try store.suite("prefs").set(1, forKey: "k")
        try FileManager.default.createDirectory(atPath: tmp.path("full"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: tmp.path("full/other")))
        let seen = Collector<WorkProgress>()
        expectError(.io) { try store.backup(to: tmp.path("full"), compact: true) { seen.append($0) } }
        #expect(!seen.values.contains { $0.isComplete })
    }

    @Test func doneIsHeldWithinTheTotal() {
        #expect(WorkProgress(phase: "sync", done: 12, total: 10, unit: "changes").done == 10)
        #expect(WorkProgress(phase: "sync", done: -1, total: 10, unit: "changes").done == 0)
    }
}
