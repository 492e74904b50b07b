import Concord
import Foundation
import TestSupport
import Testing

/// Counters, max and min keys and sets in an encrypted suite: each replica's state is its own sealed
/// contribution, replicas without the key store and relay them unopened, and key holders join them,
/// so concurrent changes combine as they do in the clear, while no file shows a name or a value.
@Suite(.offThePool) struct EncryptedPolicyTests {
    static let counterName = "launches-marker-5e0c71"
    static let memberMarker = "member-marker-b83d24"

    /// Three key holders and a relay without the key, the suite encrypted and its policies declared
    /// on the first, and every declaration synced everywhere through the relay.
    struct Devices {
        let tmp: TemporaryDirectory
        let key = EncryptionKey.generate()
        let holders: [Store]
        let relay: Store

        init() throws {
            let tmp = try TemporaryDirectory("sealed-policy")
            let key = self.key
            self.tmp = tmp
            holders = try ["a", "b", "c"].map { try Replicas.open(tmp.path($0), keys: ["secrets": key]) }
            relay = try Replicas.open(tmp.path("relay"))
            let secrets = try holders[0].suite("secrets")
            try secrets.encrypt(with: key)
            try secrets.declare(.counter, forKey: EncryptedPolicyTests.counterName)
            try secrets.declare(.max, forKey: "best")
            try secrets.declare(.min, forKey: "fastest")
            try secrets.declare(.set, forKey: "tags")
            try syncThroughRelay()
        }

        /// Each holder syncs with the relay, and the first again: what any holder wrote reaches every one.
        func syncThroughRelay() throws {
            for store in holders + [holders[0], holders[1]] { try Synchronizer().sync(store, relay) }
        }

        func secrets(_ i: Int) throws -> Suite { try holders[i].suite("secrets") }
    }

    static func fileHolds(_ path: String, _ text: String) throws -> Bool {
        try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")).range(of: Data(text.utf8)) != nil
    }

    @Test func concurrentIncrementsOnThreeReplicasThroughAKeylessRelayAddUp() throws {
        let d = try Devices()
        defer { d.tmp.remove() }
        let name = Self.counterName
        for _ in 0..<3 { try d.secrets(0).increment(name) }
        try d.secrets(1).increment(name, by: 20)
        try d.secrets(2).increment(name, by: 300)
        #expect(try d.secrets(2).get(name, as: Int.self) == 300, "before syncing, each replica reads its own increments")
        try d.syncThroughRelay()
        for i in 0..<3 {
            #expect(try d.secrets(i).get(name, as: Int.self) == 323, "replica \(i)")
            #expect(try d.secrets(i).policy(forKey: name) == .counter)
            #expect(try d.holders[i].conflicts(suite: "secrets").isEmpty, "concurrent increments are not conflicts")
        }
        // Another round on top: each replica's contribution is its latest state, so nothing counts twice.
        try d.secrets(1).increment(name, by: -5)
        try d.secrets(0).increment(name)
        try d.syncThroughRelay()
        try d.syncThroughRelay()
        for i in 0..<3 { #expect(try d.secrets(i).get(name, as: Int.self) == 319, "replica \(i)") }

        // The relay holds one sealed contribution per replica that wrote, under the name's row key
        // followed by that replica's id, and opens none of them.
        expectError(.suiteKeyMissing) { _ = try d.relay.suite("secrets").get(name, as: Int.self) }
        let stored = try d.relay.read { r in
            var keys: [String: Record] = [:]
            try r.scanRecords(suite: "secrets") { _, key, row in
                keys[key] = row.record
                return true
            }
            return keys
        }
        #expect(stored.count == 3 && stored.values.allSatisfy(\.isSealed), "\(stored.keys.sorted())")
        #expect(Set(stored.keys.map { String($0.prefix(32)) }).count == 1, "one name's contributions share its row key")
        #expect(Set(stored.keys.map { String($0.dropFirst(32)) }) == Set(d.holders.map(\.replicaID.description)))
        for (key, record) in stored { #expect(key.hasSuffix(record.version.replica.description), "written by the replica it names") }
        for path in ["a", "b", "relay"].map(d.tmp.path) {
            #expect(try !Self.fileHolds(path, name), "the counter's name is in \(path)/data.mdb")
        }
    }

    @Test func maxMinAndSetsConvergeAndTheirDeclarationsShowNoName() throws {
        let d = try Devices()
        defer { d.tmp.remove() }
        for (i, score) in [40, 75, 12].enumerated() {
            try d.secrets(i).set(score, forKey: "best")
            try d.secrets(i).set(score, forKey: "fastest")
        }
        try d.secrets(0).update("tags", as: [String].self) { $0 = ($0 ?? []) + ["red", Self.memberMarker] }
        try d.secrets(1).update("tags", as: [String].self) { $0 = ($0 ?? []) + ["blue"] }
        try d.syncThroughRelay()
        // A removal on one replica and an addition on another, concurrent: both count.
        try d.secrets(0).update("tags", as: [String].self) { $0 = ($0 ?? []).filter { $0 != "red" } }
        try d.secrets(2).update("tags", as: [String].self) { $0 = ($0 ?? []) + ["green"] }
        #expect(try d.secrets(2).set(10, forKey: "best") == nil, "a proposal below the value writes nothing")
        try d.syncThroughRelay()
        for i in 0..<3 {
            #expect(try d.secrets(i).get("best", as: Int.self) == 75, "replica \(i)")
            #expect(try d.secrets(i).get("fastest", as: Int.self) == 12, "replica \(i)")
            #expect(try d.secrets(i).get("tags", as: [String].self) == ["blue", "green", Self.memberMarker], "replica \(i)")
        }
        // Removing a max key takes back what its replica saw; a later proposal elsewhere counts again.
        try d.secrets(1).remove("best")
        try d.syncThroughRelay()
        for i in 0..<3 { #expect(try d.secrets(i).get("best", as: Int.self) == nil, "replica \(i)") }
        try d.secrets(2).set(5, forKey: "best")
        try d.syncThroughRelay()
        for i in 0..<3 { #expect(try d.secrets(i).get("best", as: Int.self) == 5, "replica \(i)") }

        let reserved = try d.relay.suite("_concord").keys()
        let declared = reserved.filter { $0.hasPrefix("policy:secrets:") }
        #expect(declared.count == 4, "\(reserved)")
        #expect(declared.allSatisfy { SuiteSealing.isRowKey(String($0.dropFirst("policy:secrets:".count))) }, "\(declared)")
        #expect(!reserved.contains { $0.contains("best") || $0.contains("tags") || $0.contains(Self.counterName) }, "\(reserved)")
        for path in ["a", "b", "c", "relay"].map(d.tmp.path) {
            for marker in [Self.memberMarker, Self.counterName, "fastest"] {
                #expect(try !Self.fileHolds(path, marker), "\(marker) is in \(path)/data.mdb")
            }
        }
    }

    @Test func aDeclarationByNameMadeBeforeEncryptingIsMovedToTheRowKey() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let key = EncryptionKey.generate()
        let store = try Replicas.open(tmp.path("a"), keys: ["secrets": key])
        let secrets = try store.suite("secrets")
        try secrets.declare(.counter, forKey: Self.counterName)
        try secrets.encrypt(with: key)
        #expect(try secrets.policy(forKey: Self.counterName) == .counter)
        try secrets.increment(Self.counterName, by: 2)
        try secrets.increment(Self.counterName, by: 3)
        #expect(try secrets.get(Self.counterName, as: Int.self) == 5)
        #expect(try secrets.record(forKey: Self.counterName)?.policy == .counter)
        #expect(try store.suite("_concord").keys().allSatisfy { !$0.contains(Self.counterName) })
        expectError(.policyMismatch, "a prefix declaration would show the start of the names") {
            try secrets.declare(.counter, forKeysWithPrefix: "launch")
        }
    }

    @Test func theJournalAndObserversSeeTheJoinedValue() throws {
        let d = try Devices()
        defer { d.tmp.remove() }
        let name = Self.counterName
        let seen = Collector<Change>()
        let token = try d.secrets(0).changes(for: name).start { seen.append($0) }
        defer { token.cancel() }
        try d.secrets(0).increment(name, by: 2)
        #expect(seen.wait(for: 1))
        try d.secrets(1).increment(name, by: 3)
        try d.syncThroughRelay()
        #expect(seen.wait(for: 2))
        #expect(seen.values.map(\.value) == [.int(2), .int(5)])
        #expect(seen.values.last?.key == name)
        let entries = try d.holders[0].journalEntries(after: 0, suite: "secrets")
        #expect(entries.map(\.key) == [name, name], "each replica's contribution is a change of the key")
        #expect(try entries.last?.record.value() == .int(5))
        #expect(try d.relay.journalEntries(after: 0, suite: "secrets").isEmpty, "nothing of it is readable without the key")
    }

    @Test func aContributionStoredUnderAnotherReplicasKeyIsRefusedEvenWithoutTheKey() throws {
        let d = try Devices()
        defer { d.tmp.remove() }
        try d.secrets(0).increment(Self.counterName)
        let (key, record) = try #require(
            try d.holders[0].read { r in
                var found: (String, Record)?
                try r.scanRecords(suite: "secrets") { _, key, row in
                    if key.count == 64 { found = (key, row.record) }
                    return found == nil
                }
                return found
            })
        let gate = RecordGate(store: d.relay)
        #expect(gate.refusal(suite: "secrets", key: key, seq: 1, record: record) == nil)
        let moved = String(key.prefix(32)) + d.holders[1].replicaID.description
        let refused = try #require(gate.refusal(suite: "secrets", key: moved, seq: 1, record: record))
        #expect(refused.code == .refusedRecord && "\(refused)".contains("only that replica writes it"), "\(refused)")
        #expect(gate.refusal(suite: "secrets", key: String(key.prefix(40)), seq: 1, record: record) != nil)
    }
}
