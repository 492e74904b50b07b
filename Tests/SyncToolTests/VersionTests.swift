import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

/// `sync-tool --version` / `-V`: the version from its one place, and the formats this build reads and writes.
@Suite("sync-tool --version", .offThePool)
struct VersionTests {
    @Test func printsTheVersionAndTheFormats() throws {
        for flag in ["--version", "-V"] {
            let shown = try run("sync-tool", [flag])
            #expect(shown.status == 0)
            #expect(
                shown.lines == [
                    "sync-tool \(SyncToolVersion.version)",
                    "store format \(Store.formatVersion) (writes \(Store.formatVersion); opens 1–\(Store.formatVersion), upgrading older ones in place)",
                    "bundle format \(SyncBundle.formatVersion) (writes \(SyncBundle.formatVersion); imports 1–\(SyncBundle.formatVersion))"
                ])
        }
        let json = Invocation(["--version", "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out[0].utf8)) as? [String: Any])
        #expect(object["version"] as? String == SyncToolVersion.version)
        #expect(object["store_format"] as? Int == Int(Store.formatVersion))
        #expect(object["store_formats_read"] as? [Int] == Array(1...Int(Store.formatVersion)))
        #expect(object["bundle_format"] as? Int == Int(SyncBundle.formatVersion))
        #expect(object["bundle_formats_read"] as? [Int] == Array(1...Int(SyncBundle.formatVersion)))
        #expect(Invocation(["--help"]).out.joined().contains("--version"))
    }

    @Test func anythingElseAfterItIsAUsageError() {
        let extra = Invocation(["--version", "set"])
        #expect(extra.status == 2)
        #expect(extra.err.first?.contains("'set'") == true)
        #expect(Invocation(["-V", "--jsn"]).status == 2)
    }
}
