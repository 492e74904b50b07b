import Concord
import TestSupport
import Testing

/// `Synchronizer`'s async forms: the same merge as the synchronous calls, run on a store's thread.
@Suite struct AsyncSyncTests {
    @Test func asyncSyncConvergesTwoReplicas() async throws {
        let phone = try Store.temporary()
        let watch = try Store.temporary()
        try await phone.suite("prefs").set("dark", forKey: "theme")
        try await watch.suite("prefs").set(14, forKey: "fontSize")
        let report = try await Synchronizer().sync(phone, watch)
        #expect(report.aToB.entries == 1 && report.bToA.entries == 1)
        #expect(try watch.suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try phone.suite("prefs").get("fontSize", as: Int.self) == 14)
        try await phone.suite("prefs").set("light", forKey: "theme")
        let pulled = try await Synchronizer().pull(from: phone, into: watch)
        #expect(pulled.entries == 1)
        #expect(try watch.suite("prefs").get("theme", as: String.self) == "light")
        await #expect { try await Synchronizer().sync(phone, phone) } throws: { code($0) == .sameReplica }
    }
}
