import Concord
import Foundation
import TestSupport
import Testing

/// A replica whose system clock runs a year ahead (libfaketime) must not drag the others' clocks.
@Suite(.offThePool) struct ClockSkewCommandTests {
    static func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The milliseconds of a version printed as `hlc@replica`.
    static func milliseconds(_ version: Any?) throws -> UInt64 {
        let text = try #require(version as? String)
        return try #require(UInt64(text.prefix(while: { $0 != "@" }), radix: 16)) >> 16
    }

    @Test func aYearAheadDeviceDoesNotMoveTheOthersClocks() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let a = tmp.path("a")
        let b = tmp.path("b")
        let tool = Binaries.path("sync-tool")
        let ahead = try run("/usr/bin/faketime", ["-f", "+365d", tool, "set", b, "prefs", "theme", "dark"])
        #expect(ahead.status == 0, "faketime runs sync-tool a year ahead: \(ahead.stderr)")
        #expect(try run(tool, ["set", a, "prefs", "theme", "light"]).status == 0)

        let sync = try run(tool, ["sync", a, b])
        #expect(sync.status == 0)
        #expect(sync.stdout.contains("clock skew warning"), "the merge reports the skew: \(sync.stdout)")

        let overwrite = try run(tool, ["set", a, "prefs", "theme", "system"])
        #expect(overwrite.status == 0)
        #expect(overwrite.stderr.contains("clock skew warning"), "the write says it had to go past the skewed version: \(overwrite.stderr)")
        let theme = try Self.json(try run(tool, ["get", a, "prefs", "theme", "--json"]).stdout)
        #expect(theme["value"] as? String == "system", "A's write wins over the future one")

        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(try run(tool, ["set", a, "prefs", "fontSize", "14", "--type", "int"]).status == 0)
        let other = try Self.json(try run(tool, ["get", a, "prefs", "fontSize", "--json"]).stdout)
        let drift = Store.Options().maxClockDriftMilliseconds
        #expect(try Self.milliseconds(other["version"]) <= now + drift + 60_000, "another key's version is not a year ahead")
    }
}
