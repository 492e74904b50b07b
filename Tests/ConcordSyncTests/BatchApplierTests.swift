import Concord
import TestSupport
import Testing

@Suite(.offThePool) struct BatchApplierTests {
    @Test func aBatchWithTwoEntriesForOneKeyIsRefusedWholesale() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("r"))
        try store.suite("app").set("local", forKey: "k")
        let before = try store.lastSeq()
        let peer = ReplicaID.random()
        let newer = try Record(version: Version(hlc: UInt64.max >> 8, replica: peer), value: .string("newer"))
        let older = try Record(version: Version(hlc: 1 << 16, replica: peer), value: .string("older"))
        let batch = RemoteBatch(
            source: peer, selection: .all, fromSeq: 0, toSeq: 3,
            entries: [
                RemoteEntry(seq: 1, suite: "app", key: "other", record: older),
                RemoteEntry(seq: 2, suite: "app", key: "k", record: newer),
                RemoteEntry(seq: 3, suite: "app", key: "k", record: older)
            ],
            knowledge: .none)
        #expect(throws: ConcordError.duplicateKey(suite: "app", key: "k")) { try BatchApplier(store: store).apply(batch) }
        #expect(try store.lastSeq() == before)
        #expect(try store.suite("app").get("k", as: String.self) == "local")
        #expect(try store.suite("app").contains("other") == false)
    }
}
