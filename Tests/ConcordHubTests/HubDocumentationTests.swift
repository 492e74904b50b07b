import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

/// The hub code of the documentation's "Syncing replicas" article, against a scratch server.
@Suite("The documentation's hub code", .serialized, .offThePool)
struct HubDocumentationTests {
    @Test("a device syncs with the hub once, then keeps syncing live until it stops")
    func syncOnceThenLive() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let store = try fx.store("phone")
        let laptop = try fx.store("laptop")
        try store.suite("prefs").set("dark", forKey: "theme")

        let hub = try Hub(alice.url)
        let report = try HubSynchronizer().sync(store, hub) // push in one SQL transaction, then pull
        #expect(report.aToB.newEntries == 1 && report.conflicts.isEmpty)

        let url = alice.url
        let live = try LiveSync(store: laptop) {
            try HubLivePeer(store: laptop, url: url)
        }
        let deadline = Date().addingTimeInterval(30)
        while try laptop.suite("prefs").get("theme", as: String.self) != "dark" && Date() < deadline { usleep(20_000) }
        #expect(try laptop.suite("prefs").get("theme", as: String.self) == "dark", "the live sync pulled the phone's push")
        live.stop()
    }
}
