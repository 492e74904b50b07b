import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// `sync-tool sync DIR postgresql://… --progress=json`: the device's journal read, the push's changes,
/// then the pull's seqs of the account page by page, each phase's last update complete.
@Suite("Hub sync progress", .offThePool)
struct HubProgressTests {
    /// The progress objects of `phase` on `stderr`: `done` never going back, one total, the last complete.
    func phase(_ stderr: String, _ name: String, unit: String) throws -> (total: Int, updates: Int) {
        let objects = try stderr.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }.filter { $0["phase"] as? String == name }
        let last = try #require(objects.last, "no \(name) progress in \(stderr)")
        let total = try #require(last["total"] as? Int)
        var previous = -1
        for o in objects {
            #expect(o["unit"] as? String == unit)
            #expect(o["total"] as? Int == total)
            let done = try #require(o["done"] as? Int)
            #expect(done >= previous, "done went back: \(stderr)")
            previous = done
        }
        #expect(last["done"] as? Int == total)
        return (total, objects.count)
    }

    @Test func pushThenPullReportTheirRealTotals() async throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let (phone, laptop) = (fx.path("phone"), fx.path("laptop"))
        do {
            let store = try Store(path: phone)
            try await store.suite("prefs").batch { b in for i in 0..<2500 { try b.set(i, forKey: "k\(i)") } }
        }
        let pushed = try await offThePool { try run("sync-tool", ["sync", phone, alice.url, "--json", "--progress=json"], timeout: 600) }
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(try phase(pushed.stderr, "read", unit: "seqs").total == Int(try Store(path: phone).lastSeq()))
        #expect(try phase(pushed.stderr, "push", unit: "changes").total == 2500)
        let order = pushed.stderr.split(separator: "\n").compactMap { line in
            ["read", "push", "pull"].first { line.contains("\"phase\":\"\($0)\"") }
        }
        #expect(order.reduce(into: [String]()) { seen, p in if seen.last != p { seen.append(p) } } == ["read", "push", "pull"], "\(order)")

        // A new device pulls the account's 2,500 seqs in pages of 1,000, and has nothing to push.
        let pulled = try await offThePool { try run("sync-tool", ["sync", laptop, alice.url, "--json", "--progress=json"], timeout: 600) }
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(pulled.stdout.utf8)) as? [String: Any])
        #expect(report["pulled"] as? Int == 2500)
        #expect(try phase(pulled.stderr, "push", unit: "changes").total == 0)
        let pull = try phase(pulled.stderr, "pull", unit: "seqs")
        #expect(pull.total == 2500)
        #expect(try Store(path: laptop).info().records == 2500)
    }
}
