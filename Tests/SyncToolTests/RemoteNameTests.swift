import Concord
import Foundation
import TestSupport
import Testing

/// Replica names over `serve` (ssh): an ordinary record of the reserved suite, carried both ways by a
/// remote sync, and a value explained on the far side by its writer's name.
@Suite("Replica names over a real sshd", .offThePool)
struct RemoteNameTests {
    @Test("names travel both ways over ssh, and why on the far side names the writer")
    func namesTravelOverSSH() async throws {
        let fx = try RemoteFixture()
        defer { fx.tmp.remove() }
        let a = try Store(path: fx.path("a"))
        try await a.setName("Ada's laptop")
        try await a.suite("prefs").set("dark", forKey: "theme")
        let first = try await offThePool { try fx.sync(fx.path("a"), fx.remote("b"), ["--create"]) }
        #expect(first.status == 0, "\(first.stderr)")
        let b = try Store(path: fx.path("b"))
        try await b.setName("Bob's desktop")
        #expect(try b.name(of: a.replicaID) == "Ada's laptop")
        let why = try b.suite("prefs").explain("theme")
        #expect(why.writer == NamedReplica(id: a.replicaID, name: "Ada's laptop"))
        if case .sync(let peer, _)? = why.arrival { #expect(peer.id == a.replicaID) } else { Issue.record("arrived by the remote sync") }

        let second = try await offThePool { try fx.sync(fx.path("a"), fx.remote("b")) }
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try a.name(of: b.replicaID) == "Bob's desktop", "the far side's name came back")
        let info = try await offThePool { try run("sync-tool", ["info", fx.path("b"), "--json"]) }
        #expect(info.stdout.contains(#""replica_name":"Bob's desktop""#))
    }
}
