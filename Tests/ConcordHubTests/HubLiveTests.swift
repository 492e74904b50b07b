import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import TestSupport
import Testing

@Suite("Hub live sync: LISTEN/NOTIFY", .serialized, .offThePool)
struct HubLiveTests {
    /// Waits until `body` holds (or the timeout passes).
    func eventually(_ timeout: Double = 30, _ body: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try body() { return true }
            usleep(5_000)
        }
        return try body()
    }

    @Test(
        "a change on one device reaches the other live; after a network cut (server down, then a killed backend) both reconnect and resume, on either table layout",
        arguments: HubLayout.allCases)
    func liveAcrossCuts(layout: HubLayout) throws {
        let server = try ScratchPostgres()
        defer { server.destroy() }
        let fx = try HubFixture(server: server, layout: layout)
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        let watch = try fx.store("watch")
        let events = Collector<String>()
        let url = alice.url
        func start(_ store: Store, _ name: String) throws -> LiveSync {
            try LiveSync(
                store: store, heartbeat: .seconds(30), maxBackoff: .seconds(0.5),
                onEvent: { e in
                    switch e {
                    case .connected: events.append("\(name) connected")
                    case .disconnected: events.append("\(name) disconnected")
                    case .synced: break
                    }
                }
            ) { try HubLivePeer(store: store, url: url) }
        }
        let a = try start(phone, "phone")
        let b = try start(watch, "watch")
        defer {
            a.stop()
            b.stop()
        }
        #expect(eventually { events.values.contains("phone connected") && events.values.contains("watch connected") })

        try phone.suite("prefs").set("dark", forKey: "theme")
        #expect(try eventually { try watch.suite("prefs").get("theme", as: String.self) == "dark" })
        try watch.suite("prefs").set(3, forKey: "steps")
        #expect(try eventually { try phone.suite("prefs").get("steps", as: Int.self) == 3 })

        // The server goes away; the phone writes while it is down; the server comes back.
        server.stop(.fast)
        #expect(eventually { events.values.contains("watch disconnected") })
        try phone.suite("prefs").set("light", forKey: "theme")
        try server.start()
        #expect(try eventually(60) { try watch.suite("prefs").get("theme", as: String.self) == "light" })

        // The watch's connection is cut by the server (its backends are terminated).
        let admin = try PostgresConnection(ConnectionString(fx.adminURL))
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", [.text(alice.name)])
        try phone.suite("prefs").set(4, forKey: "steps")
        #expect(try eventually(60) { try watch.suite("prefs").get("steps", as: Int.self) == 4 })
        #expect(try contents(phone) == contents(watch))
        let disconnects = events.values.filter { $0.hasSuffix("disconnected") }.count
        #expect(disconnects >= 2)
        // The same LiveSync as for directories and remotes: its state says where each device stands.
        #expect(eventually { a.state.connection == .connected && a.state.isInSync && b.state.isInSync })
        #expect(a.state.lastRound != nil && a.state.lastError == nil)
        b.stop()
        #expect(b.state.connection == .stopped)
    }
}
