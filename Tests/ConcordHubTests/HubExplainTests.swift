import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// Replica names and `Suite.explain` through the hub: a name is an ordinary record of the reserved
/// suite, so the hub carries it with no path of its own, and a device explains a value another device
/// wrote by that device's name, as arrived from the hub.
@Suite("Hub: replica names and explanations", .offThePool)
struct HubExplainTests {
    @Test("a replica's name and its counter part reach another device through the hub")
    func aNameTravelsThroughTheHub() throws {
        let fx = try HubFixture(layout: .plain)
        let alice = try fx.account("alice")
        let (laptop, desktop) = (try fx.store("laptop"), try fx.store("desktop"))
        let sync = HubSynchronizer()
        try laptop.setName("Ada's laptop")
        try laptop.suite("app").declare(.counter, forKey: "launches")
        try laptop.suite("app").increment("launches", by: 2)
        try laptop.suite("prefs").set("dark", forKey: "theme")
        try sync.sync(laptop, try Hub(alice.url))
        try sync.sync(desktop, try Hub(alice.url))
        try desktop.suite("app").increment("launches", by: 3)

        #expect(try desktop.name(of: laptop.replicaID) == "Ada's laptop")
        let why = try desktop.suite("prefs").explain("theme")
        #expect(why.value == .string("dark") && why.writer == NamedReplica(id: laptop.replicaID, name: "Ada's laptop"))
        guard case .sync(let peer, let at)? = why.arrival else {
            Issue.record("the record arrived by the hub's pull: \(String(describing: why.arrival))")
            return
        }
        #expect(peer.id != laptop.replicaID && peer.id != desktop.replicaID && at != nil, "the peer that delivered it is the hub")
        let parts = try desktop.suite("app").explain("launches").parts.filter { !$0.isBase }
        #expect(parts.count == 2)
        #expect(parts.first { $0.replica.id == laptop.replicaID }.map { $0.value == .int(2) && $0.replica.name == "Ada's laptop" } == true)
        #expect(parts.first { $0.replica.id == desktop.replicaID }?.value == .int(3))
    }
}
