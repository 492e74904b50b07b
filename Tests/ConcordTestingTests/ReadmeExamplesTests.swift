import Concord
import ConcordTesting
import Foundation
import TestSupport
import Testing

/// The testing and operations examples of the articles (Concord.docc/Testing.md,
/// DurabilityAndPerformance.md, ProgressAndMetrics.md, whose blocks doc-examples compiles), run: each
/// behaves as the article says.
@Suite struct ReadmeOperationsAndTestingExamplesTests {
    /// "Your code" in the README's test.
    func saveDraft(_ text: String, in suite: Suite) async throws {
        try await Task.detached { try suite.set(text, forKey: "draft") }.value
    }

    @Test func draftsAreForgottenAfterAMonth() async throws {
        let clock = ManualClock()
        let store = try Store.temporary(clock: clock)
        let suite = try store.suite("app")

        let saved = try suite.expectChange(of: "draft")
        try await saveDraft("hello", in: suite)
        #expect(try await saved.value(timeout: .seconds(5)).value == .string("hello"))

        try await suite.remove("draft")
        clock.advance(days: 31)
        #expect(try store.collectTombstones().collected == 1)
    }

    @Test func backupsAndSizes() throws {
        let store = try Store.temporary()
        try store.suite("app").set("dark", forKey: "theme")
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }

        let backup = try store.backup(to: tmp.path("settings-2026-12-01"), compact: true)
        let lastSeq = try store.lastSeq()
        #expect(backup.records == 1 && backup.lastSeq == lastSeq)
        #expect(backup.replicaID == store.replicaID, "the backup is the same replica")
        #expect(try Store(path: tmp.path("settings-2026-12-01")).suite("app").get("theme", as: String.self) == "dark")
        expectError(.io) { try store.backup(to: tmp.path("settings-2026-12-01")) }

        let stats = try store.statistics()
        #expect(stats.map.usedBytes <= stats.map.mapBytes)
        #expect(stats.map.freePages > 0 && stats.map.freePages < stats.map.pagesUsed, "commits free the pages they copy: \(stats.map)")
        #expect(stats.readers.inUse <= stats.readers.max)
        #expect(stats.largestSuites.first?.name == "app")
    }
}
