import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// I/O faults injected through the LMDB layer, in a helper process (fault injection is global to a
/// process): the caller gets an error, nothing crashes, and a fresh process finds the store sound
/// with every write that was acknowledged and none that was refused.
@Suite(.offThePool) struct FaultInjectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let operation: String
        let error: String
        let persistent: Bool
        /// Whether the write during the fault must fail (a full map is grown and the write retried instead).
        let refused: Bool
        /// The errno or LMDB code the refused write reports.
        let code: Int32
        var testDescription: String { "\(error) in \(operation), \(persistent ? "persistent" : "once")" }
    }

    static let cases: [Case] = [
        Case(operation: "commit", error: "ENOSPC", persistent: false, refused: true, code: ENOSPC),
        Case(operation: "commit", error: "ENOSPC", persistent: true, refused: true, code: ENOSPC),
        Case(operation: "commit", error: "EIO", persistent: false, refused: true, code: EIO),
        Case(operation: "commit", error: "EIO", persistent: true, refused: true, code: EIO),
        Case(operation: "put", error: "EIO", persistent: false, refused: true, code: EIO),
        Case(operation: "put", error: "ENOSPC", persistent: true, refused: true, code: ENOSPC),
        Case(operation: "beginTransaction", error: "EIO", persistent: false, refused: true, code: EIO),
        Case(operation: "beginTransaction", error: "ENOSPC", persistent: true, refused: true, code: ENOSPC),
        Case(operation: "put", error: "MAP_FULL", persistent: false, refused: false, code: 0),
        Case(operation: "commit", error: "MAP_FULL", persistent: false, refused: false, code: 0),
        Case(operation: "commit", error: "MAP_FULL", persistent: true, refused: true, code: -30792),
        Case(operation: "setMapSize", error: "ENOMEM", persistent: false, refused: true, code: ENOMEM),
        Case(operation: "setMapSize", error: "ENOMEM", persistent: true, refused: true, code: ENOMEM)
    ]

    @Test(arguments: cases)
    func faultReachesTheCallerAndLosesNothing(_ c: Case) throws {
        let tmp = try TemporaryDirectory("concord-fault")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let outcome = try run("concord-test-helper", ["fault", dir, c.operation, c.error, c.persistent ? "persistent" : "once"])
        try #require(outcome.exited(0), "the faulted process must not crash: \(outcome)")

        let acknowledged = outcome.lines.filter { $0.hasPrefix("ack ") }.map { $0.split(separator: " ")[1] }.map(String.init)
        let refused = outcome.lines.filter { $0.hasPrefix("refused ") }
        let duringKeys = c.persistent ? ["during-0", "during-1", "during-2"] : ["during-0"]
        for i in 0..<10 { #expect(acknowledged.contains("before-\(i)"), "before-\(i) was written before the fault") }
        for i in 0..<3 { #expect(acknowledged.contains("after-\(i)"), "after-\(i): writes work again once the fault is gone") }
        if c.refused {
            #expect(refused.count == duringKeys.count, "every write during the fault is refused: \(outcome.stdout)")
            for line in refused {
                let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
                #expect(fields.count == 4 && fields[2] == String(c.code), "a ConcordError.lmdb carrying code \(c.code): \(line)")
                #expect(fields.count == 4 && fields[3].contains("failed:"), "the message names the operation that failed: \(line)")
            }
            for key in duringKeys { #expect(!acknowledged.contains(key)) }
        } else {
            #expect(refused.isEmpty, "a full map is grown and the write retried: \(outcome.stdout)")
            #expect(acknowledged.contains("during-0"))
        }
        if c.persistent { #expect(outcome.lines.contains("read-ok before-0"), "reads keep working while writes fail") }

        // A fresh process: the store is sound, holds every acknowledged write, and none that was refused.
        try StoreContents.expectSound(dir)
        let stored = try StoreContents.list(dir, suite: "fault")
        #expect(Set(stored.keys) == Set(acknowledged), "exactly the acknowledged writes are stored")
        let first = refused.first.map { String($0.prefix(160)) } ?? "none refused"
        figure(
            "I/O fault \(c.testDescription)",
            "\(acknowledged.count) writes acknowledged, \(refused.count) refused (\(first)); reopened sound with all \(stored.count)")
    }

    /// Map growth failing for real: the helper limits its address space so the initial 64 MiB map fits
    /// but the 128 MiB one does not, so `mmap` itself fails (no injection).
    @Test func mapGrowthFailingForRealKeepsTheStoreReadable() throws {
        let tmp = try TemporaryDirectory("concord-growth")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let outcome = try run("concord-test-helper", ["grow-until-refused", dir])
        try #require(outcome.exited(0), "growing the map under an address-space limit must not crash: \(outcome)")
        let refusal = try #require(outcome.lines.first { $0.hasPrefix("refused big-") }, "a write is refused once the map cannot grow: \(outcome.stdout)")
        #expect(
            refusal.contains("growing the map") && refusal.contains("Cannot allocate memory"),
            "the error says the map could not grow for lack of memory: \(refusal)")
        let limit = outcome.lines.first { $0.hasPrefix("address-space limit") } ?? "?"
        let acknowledged = outcome.lines.filter { $0.hasPrefix("ack big-") }.count
        #expect(acknowledged > 0)
        #expect(
            outcome.lines.contains("read-back \(acknowledged) of \(acknowledged)"), "every acknowledged value reads back in the same process: \(outcome.stdout)"
        )
        #expect(outcome.lines.contains("ack small"), "small writes still fit in the map: \(outcome.stdout)")
        try StoreContents.expectSound(dir)
        #expect(try StoreContents.list(dir, suite: "grow").count == acknowledged + 1)
        figure("map growth failing for real", "\(limit): \(acknowledged) writes of 2 MiB acknowledged, then: \(refusal.prefix(140))")
    }
}
