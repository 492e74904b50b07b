import Foundation
import TestSupport
import Testing

/// fork() right after opening a store: the child cannot use the parent's LMDB environment (ForkGuard
/// refuses it), may open the store afresh, and the parent's store stays sound with all its data.
@Suite(.offThePool) struct ForkTests {
    @Test func childOfForkCannotCorruptTheParentsStore() throws {
        let tmp = try TemporaryDirectory("concord-fork")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let outcome = try run("concord-test-helper", ["fork-after-open", dir, "app"])
        try #require(outcome.exited(0), "the forking helper: \(outcome)")
        #expect(outcome.lines.contains("child-exit 0"), "the child exits 0: nothing it was refused worked, and a fresh open did: \(outcome.stdout)")
        let inheritedWrite = outcome.lines.first { $0.hasPrefix("child: inherited write") } ?? ""
        #expect(inheritedWrite.hasPrefix("child: inherited write refused") && inheritedWrite.contains("fork()"), "the error names fork(): \(inheritedWrite)")
        #expect(outcome.lines.contains { $0.hasPrefix("child: inherited read refused") })
        #expect(outcome.lines.contains("child: a store opened in the child works"))
        #expect(outcome.lines.contains("parent done"), "the parent goes on writing after the child is gone")

        try StoreContents.expectSound(dir)
        var expected: [String: String] = ["child-fresh": "42"]
        for i in 0..<10 {
            expected["parent-\(i)"] = "\(i)"
            expected["parent-after-\(i)"] = "\(100 + i)"
        }
        StoreContents.expectEqual(try StoreContents.list(dir, suite: "app"), expected)
        figure("fork after open", "child: \(inheritedWrite.dropFirst("child: ".count)); the store passed check with all 21 records")
    }
}
