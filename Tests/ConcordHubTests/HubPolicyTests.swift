import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// Policy records through the hub: its push merges them with the replicas' own rule, so counters
/// incremented on every device add up and set members added on every device all survive.
@Suite("Hub merge policies", .offThePool)
struct HubPolicyTests {
    @Test(
        "four devices increment a counter and add set members, syncing through the hub in random order, on either table layout",
        arguments: HubLayout.allCases, [UInt64(21), 22, 23])
    func countersAndSetsAddUpThroughTheHub(layout: HubLayout, seed: UInt64) throws {
        let fx = try HubFixture(layout: layout)
        let alice = try fx.account("alice")
        var g = SeededRandom(seed: seed)
        let stores = try (0..<4).map { try fx.store("d\($0)") }
        let hubs = try (0..<4).map { _ in try Hub(alice.url) }
        let sync = HubSynchronizer(pageSize: 4)
        try stores[0].suite("app").declare(.counter, forKey: "launches")
        try stores[0].suite("app").declare(.set, forKey: "tags")
        for r in 0..<4 { try sync.sync(stores[r], hubs[r]) } // the declarations reach every device
        var total = 0
        var members = Set<String>()
        for step in 0..<160 {
            let r = Int.random(in: 0..<4, using: &g)
            let app = try stores[r].suite("app")
            switch Int.random(in: 0..<100, using: &g) {
            case 0..<40:
                let amount = Int.random(in: -2...5, using: &g)
                try app.increment("launches", by: amount)
                total += amount
            case 40..<55:
                let member = "t\(step)"
                try app.update("tags", as: [String].self) { $0 = ($0 ?? []) + [member] }
                members.insert(member)
            case 55..<70: try sync.push(stores[r], hubs[r])
            case 70..<85: try sync.pull(stores[r], hubs[r])
            default: try sync.sync(stores[r], hubs[r])
            }
        }
        for _ in 0..<2 { for r in 0..<4 { try sync.sync(stores[r], hubs[r]) } }
        let fresh = try fx.store("fresh")
        try sync.sync(fresh, try Hub(alice.url))
        for (i, store) in (stores + [fresh]).enumerated() {
            #expect(try store.suite("app").get("launches", as: Int.self) ?? 0 == total, "seed \(seed): device \(i) reads every increment once")
            #expect(Set(try store.suite("app").get("tags", as: [String].self) ?? []) == members, "seed \(seed): device \(i) holds every member")
            #expect(try store.conflicts(suite: "app").isEmpty, "seed \(seed): combined changes are not conflicts")
        }
        let bytes = try stores.map { try $0.suite("app").record(forKey: "launches")?.encoded }
        #expect(Set(bytes).count == 1, "seed \(seed): every device holds the same record")
    }

    @Test("concurrent sets of a counter through the hub: the later wins everywhere and the pushing device logs the loss", arguments: HubLayout.allCases)
    func concurrentSetsThroughTheHubAreConflicts(layout: HubLayout) throws {
        let fx = try HubFixture(layout: layout)
        let alice = try fx.account("alice")
        let (a, b) = (try fx.store("a"), try fx.store("b"))
        let (hubA, hubB) = (try Hub(alice.url), try Hub(alice.url))
        let sync = HubSynchronizer()
        try a.suite("app").declare(.counter, forKey: "n")
        try a.suite("app").set(1, forKey: "n")
        try sync.sync(a, hubA)
        try sync.sync(b, hubB)
        try b.suite("app").set(10, forKey: "n")
        waitForWallClock(after: try #require(try b.suite("app").record(forKey: "n")?.version.milliseconds)) // so a's set is the later
        try a.suite("app").set(20, forKey: "n")
        try a.suite("app").increment("n")
        try sync.sync(b, hubB)
        let pushed = try sync.sync(a, hubA)
        #expect(pushed.aToB.conflicts.count == 1, "a's push met b's concurrent set")
        try sync.sync(b, hubB)
        #expect(try a.suite("app").get("n", as: Int.self) == 21)
        #expect(try b.suite("app").get("n", as: Int.self) == 21)
        let lost = try #require(try a.conflicts(suite: "app").first)
        #expect(try lost.loser.value() == .int(10) && lost.winner.value() == .int(20))
    }
}
