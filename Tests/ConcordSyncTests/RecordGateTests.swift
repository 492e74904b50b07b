import Concord
import Foundation
import TestSupport
import Testing

/// The gate every record from outside passes (`RecordGate`), the version bound, and what happens to
/// a replica that holds records the gate would refuse (stored by a release without its rules).
@Suite(.offThePool) struct RecordGateTests {
    static let peer = ReplicaID(bytes: [UInt8](repeating: 7, count: 16))!
    static let now: UInt64 = 1_800_000_000_000 << 16

    static func plain(_ value: Value, hlc: UInt64 = now) throws -> Record { try Record(version: Version(hlc: hlc, replica: peer), value: value) }

    @Test("the gate refuses each kind of bad record and says what is wrong; sound records, the reserved suite's long keys and a value at the limit pass")
    func refusals() throws {
        let gate = RecordGate(maxValueBytes: 4 << 20)
        var counter = PolicyState(policy: .counter)
        try counter.increment(by: 2, at: Version(hlc: HybridClock.maxHLC + 1, replica: Self.peer), key: "k")
        var set = PolicyState(policy: .set)
        set.add([[200]], at: Version(hlc: Self.now, replica: Self.peer))
        let cases: [(String, String, Record, RecordRefusal?, String)] = [
            ("app", "theme", try Self.plain(.string("dark")), nil, ""),
            ("_concord", "policy:app:" + String(repeating: "k", count: 256), try Self.plain(.string("counter")), nil, ""),
            ("app", "big", try Self.plain(.data(Data(repeating: 1, count: (4 << 20) - 5))), nil, ""),
            ("app", "at-the-bound", try Self.plain(.int(1), hlc: HybridClock.maxHLC), nil, ""),
            ("../x", "k", try Self.plain(.int(1)), .suiteName, "only letters, digits"),
            ("", "k", try Self.plain(.int(1)), .suiteName, "it is empty"),
            (String(repeating: "s", count: 129), "k", try Self.plain(.int(1)), .suiteName, "129 bytes, over the limit of 128"),
            (String(repeating: "s", count: 300), "k", try Self.plain(.int(1)), .suiteName, "300 bytes, over the limit of 128"),
            ("..", "k", try Self.plain(.int(1)), .suiteName, "'.' and '..' are not suite names"),
            ("app", "a\u{0}b", try Self.plain(.int(1)), .key, "U+0000"),
            ("app", String(repeating: "k", count: 257), try Self.plain(.int(1)), .key, "over the limit of 256"),
            ("app", "huge", try Self.plain(.data(Data(repeating: 1, count: 20 << 20))), .valueSize, "over the limit of 4194304 bytes"),
            ("app", "pinned", try Self.plain(.int(1), hlc: .max), .version, "past the greatest any clock produces"),
            ("app", "past", try Self.plain(.int(1), hlc: HybridClock.maxHLC + 1), .version, "end of the year 9999"),
            ("app", "counter", Record(version: Version(hlc: Self.now, replica: Self.peer), state: counter), .version, "past the greatest"),
            ("app", "garbage", Record(version: Version(hlc: Self.now, replica: Self.peer), valueBytes: [200, 1, 2]), .undecodable, "damaged"),
            ("app", "nothing", Record(version: Version(hlc: Self.now, replica: Self.peer), valueBytes: []), .undecodable, "does not decode"),
            ("app", "newer", Record(version: Version(hlc: Self.now, replica: Self.peer), valueBytes: [13, 0]), .writtenByNewerConcord, "upgrade Concord"),
            ("app", "set", Record(version: Version(hlc: Self.now, replica: Self.peer), state: set), .undecodable, "a value of its policy state does not decode")
        ]
        for (suite, key, record, problem, words) in cases {
            let refused = gate.refusal(suite: suite, key: key, seq: 9, record: record)
            #expect(refused?.refusal == problem, "\(suite.prefix(20))/\(key.prefix(20)): \(String(describing: refused))")
            if let refused {
                #expect(refused.message.contains(words), "\(refused)")
                #expect(refused.description.contains("(seq 9)"), "the refusal names the seq: \(refused)")
                #expect(refused.refusal == .writtenByNewerConcord || !refused.message.contains("newer"), "only a plausible tag says newer: \(refused)")
                #expect(refused.description.count < 400, "a long name is shown in part: \(refused.description.count) characters")
            }
        }
    }

    @Test("every merge passes the gate: a batch holding one bad record is refused whole by apply and plan, and changes nothing")
    func batchesAreRefusedWhole() throws {
        let store = try Store.temporary()
        try store.suite("app").set("local", forKey: "theme")
        let before = try store.lastSeq()
        let cursors = try store.peerCursors()
        let batch = RemoteBatch(
            source: Self.peer, selection: .all, fromSeq: 0, toSeq: 2,
            entries: [
                RemoteEntry(seq: 1, suite: "app", key: "sound", record: try Self.plain(.string("fine"))),
                RemoteEntry(seq: 2, suite: "app", key: "theme", record: try Self.plain(.string("pinned"), hlc: .max))
            ], knowledge: .none)
        for merge in [{ try BatchApplier(store: store).apply(batch) }, { try BatchApplier(store: store).plan(batch) }] {
            let error = #expect(throws: ConcordError.self) { try merge() }
            #expect(error?.code == .refusedRecord && error?.refusal == .version && error?.key == "theme" && error?.seq == 2, "\(String(describing: error))")
        }
        #expect(try store.lastSeq() == before)
        #expect(try store.peerCursors() == cursors)
        #expect(try store.suite("app").get("theme", as: String.self) == "local")
        #expect(try !store.suite("app").contains("sound"))
    }

    @Test("a local write never wraps: a key whose record is at the bound, or past it, refuses writes and deletes; so does a wall clock past 9999")
    func localWritesNeverWrap() throws {
        let clock = ManualClock()
        var options = Store.Options()
        options.wallClock = clock.read
        let store = try Store.temporary(options: options)
        let suite = try store.suite("app")
        try store.write { w in
            try w.storeMerged(try Self.plain(.int(1), hlc: HybridClock.maxHLC), suite: "app", key: "bound", from: Self.peer, replacing: nil)
            try w.storeUncheckedForTesting(try Self.plain(.int(2), hlc: .max), suite: "app", key: "pinned", from: Self.peer)
        }
        let seq = try store.lastSeq()
        for key in ["bound", "pinned"] {
            expectError(.versionExhausted, "set \(key)") { try suite.set(3, forKey: key) }
            expectError(.versionExhausted, "remove \(key)") { try suite.remove(key) }
            expectError(.versionExhausted, "increment \(key)") { try suite.increment(key) }
        }
        var message = ""
        do { try suite.set(3, forKey: "pinned") } catch { message = "\(error)" }
        #expect(message.contains("no later version exists") && message.contains("nothing was written"), "\(message)")
        #expect(try store.lastSeq() == seq, "nothing was written")
        #expect(try suite.get("pinned", as: Int.self) == 2)
        #expect(try suite.record(forKey: "bound")?.version.hlc == HybridClock.maxHLC)
        try suite.set("fine", forKey: "other")
        #expect(try suite.record(forKey: "other")!.version.hlc < HybridClock.maxHLC)

        clock.set(.milliseconds(HybridClock.maxMilliseconds + 1))
        expectError(.versionExhausted, "a wall clock past the year 9999") { try suite.set("late", forKey: "other") }
        do { try suite.set("late", forKey: "other") } catch { message = "\(error)" }
        #expect(message.contains("set the system clock right"), "\(message)")
        clock.set(.milliseconds(HybridClock.maxMilliseconds))
        try suite.set("last", forKey: "other")
        #expect(try suite.record(forKey: "other")!.version.hlc <= HybridClock.maxHLC, "the last millisecond of 9999 still writes")
        #expect(try store.integrityReport().isSound)
    }

    @Test("a merged version far ahead moves the clock at most to the drift bound, and that bound never passes the version bound")
    func theDriftBoundStopsAtTheVersionBound() {
        #expect(HybridClock.bound(nowMilliseconds: 1_000, maxDriftMilliseconds: .max) == HybridClock.maxHLC)
        #expect(HybridClock.bound(nowMilliseconds: HybridClock.maxMilliseconds, maxDriftMilliseconds: 1) == HybridClock.maxHLC)
        #expect(HybridClock.merge(remote: .max, clock: 5, nowMilliseconds: 1_000, maxDriftMilliseconds: .max).clock == HybridClock.maxHLC)
        #expect(HybridClock.localWrite(nowMilliseconds: 1_000, clock: HybridClock.maxHLC, existing: nil, maxDriftMilliseconds: 0) == nil)
        #expect(HybridClock.localWrite(nowMilliseconds: 1_000, clock: 0, existing: HybridClock.maxHLC - 1, maxDriftMilliseconds: 0)?.hlc == HybridClock.maxHLC)
    }

    @Test("a key holding U+0000 cannot be written; one stored before that rule stays readable and removable, and syncs leave it out, once per peer")
    func keysHoldingNUL() throws {
        let tmp = try TemporaryDirectory("gate-nul")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        let suite = try a.suite("app")
        expectError(.invalidKey) { try suite.set("x", forKey: "a\u{0}b") }
        expectError(.invalidKey) { try suite.increment("a\u{0}b") }
        expectError(.invalidKey) { try suite.update("a\u{0}b", as: String.self) { $0 = "x" } }
        #expect(try a.lastSeq() == 0)

        try a.write { w in try w.storeUncheckedForTesting(try Self.plain(.string("old")), suite: "app", key: "a\u{0}b", from: Self.peer) }
        try suite.set("sound", forKey: "plain")
        #expect(try suite.get("a\u{0}b", as: String.self) == "old", "still readable")
        let first = try Synchronizer().sync(a, b)
        #expect(first.aToB.refused.map(\.key) == ["a\u{0}b"] && first.aToB.refused.first?.refusal == .key, "\(first.aToB.refused)")
        #expect(try b.suite("app").keys() == ["plain"])
        try suite.remove("a\u{0}b")
        #expect(try !suite.contains("a\u{0}b"), "removable")
        try suite.set("later", forKey: "plain")
        let second = try Synchronizer().sync(a, b)
        #expect(second.aToB.refused.map(\.key) == ["a\u{0}b"], "its tombstone is left out too: \(second.aToB.refused)")
        let third = try Synchronizer().sync(a, b)
        #expect(third.aToB.refused.isEmpty, "each peer is told once")
        #expect(try b.suite("app").get("plain", as: String.self) == "later")
        try Replicas.expectSound(a)
        try Replicas.expectSound(b)
    }

    @Test("records a replica holds from before the gate (a version past the bound, a value over the limit, a bad suite) stay out of every sync; the rest syncs")
    func recordsFromBeforeTheGate() throws {
        let tmp = try TemporaryDirectory("gate-old")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        try a.write { w in
            try w.storeUncheckedForTesting(try Self.plain(.string("pinned"), hlc: .max), suite: "app", key: "pinned", from: Self.peer)
            try w.storeUncheckedForTesting(try Self.plain(.data(Data(repeating: 1, count: 5 << 20))), suite: "app", key: "huge", from: Self.peer)
            try w.storeUncheckedForTesting(try Self.plain(.int(1)), suite: "../x", key: "k", from: Self.peer)
        }
        try a.suite("app").set("sound", forKey: "plain")
        let report = try Synchronizer().sync(a, b)
        #expect(Set(report.aToB.refused.map(\.refusal)) == [.version, .valueSize, .suiteName], "\(report.aToB.refused)")
        #expect(try b.suiteNames() == ["app"] && b.suite("app").keys() == ["plain"])
        let bundle = tmp.path("a.bundle")
        let exported = try BundleExchange.export(from: a, since: .beginning, to: bundle)
        #expect(exported.entries == 1 && exported.leftOut.count == 3)
        let c = try Replicas.open(tmp.path("c"))
        try BundleExchange.importBundle(at: bundle, into: c)
        #expect(try c.suite("app").keys() == ["plain"])
        for store in [b, c] { try Replicas.expectSound(store) }
    }

    @Test("a bundle within its own limits but with a value over the receiving store's limit is refused whole, nothing imported")
    func theStoresOwnValueLimit() throws {
        let tmp = try TemporaryDirectory("gate-limit")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        try a.suite("app").set(Data(repeating: 2, count: 2 << 20), forKey: "big")
        try a.suite("app").set("small", forKey: "small")
        var options = Store.Options()
        options.maxValueBytes = 1 << 20
        let b = try Store(path: tmp.path("b"), options: options)
        let path = tmp.path("a.bundle")
        try BundleExchange.export(from: a, since: .beginning, to: path)
        let error = #expect(throws: ConcordError.self) { try BundleExchange.importBundle(at: path, into: b) }
        #expect(error?.code == .refusedRecord && error?.refusal == .valueSize && error?.key == "big", "\(String(describing: error))")
        #expect(try b.lastSeq() == 0)
    }
}
