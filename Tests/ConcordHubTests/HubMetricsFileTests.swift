import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `sync-tool sync DIR postgresql://… --watch --metrics-file FILE`: a change another device pushes to
/// the hub shows in the watching device's metrics file once the watch pulled it.
@Suite("Hub watch metrics file", .offThePool)
struct HubMetricsFileTests {
    /// The value of the sample `name{labels}` in the file, or nil (no file yet, no such sample).
    static func sample(_ file: String, _ name: String) -> Double? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") { return Double(line.dropFirst(name.count + 1)) }
        return nil
    }

    @Test func aPushByAnotherDeviceShowsInTheFile() async throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let (phone, laptop, file) = (fx.path("phone"), fx.path("laptop"), fx.path("concord.prom"))
        #expect(try run("sync-tool", ["set", phone, "prefs", "theme", "dark"]).status == 0)
        let replica = try Store(path: phone).replicaID.description
        let records = "concord_records{replica=\"\(replica)\"}"
        let watch = try ChildProcess("sync-tool", ["sync", phone, alice.url, "--watch", "--heartbeat", "60", "--metrics-file", file])
        defer {
            watch.kill()
            watch.wait(timeout: 10)
        }
        func waitFor(_ value: Double) async throws -> Bool {
            try await offThePool {
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline {
                    if Self.sample(file, records) == value { return true }
                    usleep(50_000)
                }
                return false
            }
        }
        #expect(try await waitFor(1), "the watch wrote the file: \(watch.errorOutput)")
        #expect(try run("sync-tool", ["set", laptop, "prefs", "font", "mono"]).status == 0)
        let pushed = try run("sync-tool", ["sync", laptop, alice.url])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(try await waitFor(2), "the laptop's push reached the phone's figures: \(watch.errorOutput)")
        watch.kill(SIGINT)
        let ended = try await offThePool { watch.wait(timeout: 60) }
        #expect(ended.status == 0, "\(ended.stderr)")
        let check = try run("/bin/sh", ["-c", "exec /usr/bin/promtool check metrics < '\(file)'"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        // The hub is the phone's peer: nothing of the phone's is pending for it.
        let hub = try #require(try Store(path: phone).peerCursors().peers.first)
        #expect(Self.sample(file, "concord_peer_pending_changes{replica=\"\(replica)\",peer=\"\(hub)\"}") == 0)
    }
}
