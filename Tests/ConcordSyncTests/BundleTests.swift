import Concord
import Foundation
import TestSupport
import Testing

@Suite(.offThePool) struct BundleTests {
    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func aBundleRoundTripsExactly() throws {
        let bundle = BundleFixtureRecipes.valid()
        #expect(try SyncBundle.decode(bundle.encoded()) == bundle)
        let selected = SyncBundle(
            batch: RemoteBatch(
                source: BundleFixtureRecipes.source, selection: try SyncSelection(suites: ["b", "a"]),
                fromSeq: 3, toSeq: 3, entries: [], knowledge: .none), createdMilliseconds: 9)
        #expect(try SyncBundle.decode(selected.encoded()) == selected)
    }

    @Test func theCommittedFixturesMatchTheirRecipes() throws {
        let write = ProcessInfo.processInfo.environment["CONCORD_WRITE_FIXTURES"] == "1"
        if write { try FileManager.default.createDirectory(atPath: Fixtures.bundles, withIntermediateDirectories: true) }
        for (name, bytes, _) in BundleFixtureRecipes.all() {
            let path = Fixtures.bundles + "/" + name
            if write { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
            let committed = try #require(FileManager.default.contents(atPath: path), "missing fixture \(path)")
            #expect([UInt8](committed) == bytes, "\(name) differs from its recipe: the bundle format changed (bump formatVersion, keep reading version 1)")
        }
    }

    /// A replica with some history, cursors and a conflict, to show a refused import changes none of it.
    static func populatedReplica(_ tmp: TemporaryDirectory) throws -> (Store, Store) {
        let clock = ManualClock(.milliseconds(BundleFixtureRecipes.created - 3_600_000)) // an hour before the fixtures were written
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let other = try Replicas.open(tmp.path("other"), clock: clock.read)
        try a.suite("prefs").set("light", forKey: "theme")
        try a.suite("prefs").set(3, forKey: "legacy")
        clock.advance(.milliseconds(1))
        try other.suite("prefs").set("blue", forKey: "theme")
        try Synchronizer().sync(a, other)
        return (a, other)
    }

    struct Snapshot: Equatable {
        let records: [String: [UInt8]]
        let lastSeq: UInt64
        let cursors: PeerCursorTable
        let conflicts: [Conflict]
        let journal: [JournalEntry]
        init(_ s: Store) throws {
            (records, lastSeq, cursors, conflicts, journal) = (
                try Replicas.bytes(s), try s.lastSeq(), try s.peerCursors(), try s.conflicts(), try s.journalEntries(after: 0)
            )
        }
    }

    @Test func everyBadFixtureIsRefusedAndChangesNothing() throws {
        let tmp = try TemporaryDirectory("bundles")
        defer { tmp.remove() }
        let (a, _) = try Self.populatedReplica(tmp)
        let before = try Snapshot(a)
        let stamp = a.commitStamp
        var refused = 0
        for (name, _, refusal) in BundleFixtureRecipes.all() {
            guard let refusal else { continue }
            let path = Fixtures.bundles + "/" + name
            do {
                try BundleExchange.importBundle(at: path, into: a)
                Issue.record("\(name) was imported")
            } catch let error as ConcordError {
                #expect(error.code == refusal, "\(name): \(error)")
                #expect(error.description.contains(path) && error.description.contains("nothing was imported"), "\(error)")
                refused += 1
            }
            // The CLI refuses it too, with exit code 3 (invalid input) and one line on stderr.
            let cli = try run("sync-tool", ["import", tmp.path("a"), path])
            #expect(cli.status == 3, "\(name): \(cli.stderr)")
            #expect(cli.stderr.split(separator: "\n").count == 1 && cli.stdout.isEmpty, "\(name): \(cli.stderr)")
        }
        #expect(refused == 7)
        #expect(try Snapshot(a) == before)
        #expect(a.commitStamp == stamp, "not one transaction was committed")
    }

    @Test func theValidFixtureImportsAndImportingTwiceIsHarmless() throws {
        let tmp = try TemporaryDirectory("bundles")
        defer { tmp.remove() }
        let (a, _) = try Self.populatedReplica(tmp)
        let path = Fixtures.bundles + "/valid.bundle"
        let first = try a.importBundle(at: path)
        #expect(first.entries == 3 && first.recordsChanged == 3, "\(first)")
        #expect(try a.suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try a.suite("prefs").get("fontSize", as: Int.self) == 14)
        #expect(try a.suite("prefs").contains("legacy") == false)
        let after = try Snapshot(a)
        let second = try a.importBundle(at: path)
        #expect(second.recordsChanged == 0 && second.alreadyMerged == 3)
        #expect(try Snapshot(a) == after, "the second import changed nothing")
        #expect(try a.peerCursors().cursor(peer: BundleFixtureRecipes.source, scope: .allSuites)?.received == 5)
        try Replicas.expectSound(a)
    }

    /// The store's own bundle calls: an export for a peer holds what this replica's cursors say the
    /// peer lacks, every change without one; the import reports as every transport does.
    @Test func aStoreExportsWhatItsPeerLacksAndThePeerImportsIt() throws {
        let tmp = try TemporaryDirectory("bundles")
        defer { tmp.remove() }
        let (laptop, phone) = (try Store(path: tmp.path("laptop")), try Store(path: tmp.path("phone")))
        try laptop.suite("prefs").set("dark", forKey: "theme")
        try laptop.suite("prefs").set(14, forKey: "fontSize")
        #expect(try laptop.exportBundle(to: tmp.path("all.bundle")) == 2)
        let first = try phone.importBundle(at: tmp.path("all.bundle"))
        #expect(first.recordsChanged == 2 && first.source == laptop.replicaID && first.target == phone.replicaID, "\(first)")
        _ = try Synchronizer().sync(laptop, phone) // the laptop's cursors learn what the phone merged
        try laptop.suite("prefs").set("light", forKey: "theme")
        #expect(try laptop.exportBundle(to: tmp.path("delta.bundle"), for: phone.replicaID) == 1, "only the change the phone lacks")
        let dry = try phone.importBundle(at: tmp.path("delta.bundle"), dryRun: true)
        #expect(try dry.recordsChanged == 1 && (phone.suite("prefs").get("theme", as: String.self)) == "dark", "a dry run writes nothing")
        #expect(try phone.importBundle(at: tmp.path("delta.bundle")).recordsChanged == 1)
        #expect(try phone.suite("prefs").get("theme", as: String.self) == "light")
        #expect(try phone.check().isEmpty && laptop.check().isEmpty)
        expectError(.sameReplica) { try laptop.exportBundle(to: tmp.path("self.bundle"), for: laptop.replicaID) }
    }

    @Test func oversizedBundlesAreRefusedBeforeTheyAreRead() throws {
        let tmp = try TemporaryDirectory("bundles")
        defer { tmp.remove() }
        let (a, _) = try Self.populatedReplica(tmp)
        let path = Fixtures.bundles + "/valid.bundle"
        let before = try Snapshot(a)
        var small = BundleLimits()
        small.maxBytes = 100
        #expect { try BundleExchange.importBundle(at: path, into: a, limits: small) } throws: { ($0 as? ConcordError)?.code == .oversized }
        var fewEntries = BundleLimits()
        fewEntries.maxEntries = 2
        #expect { try BundleExchange.importBundle(at: path, into: a, limits: fewEntries) } throws: { ($0 as? ConcordError)?.code == .oversized }
        var smallValues = BundleLimits()
        smallValues.maxValueBytes = 2
        #expect { try BundleExchange.importBundle(at: path, into: a, limits: smallValues) } throws: { ($0 as? ConcordError)?.code == .oversized }
        #expect(try Snapshot(a) == before)
    }

    @Test func damageAnywhereIsCaught() throws {
        // Every single-bit flip and every truncation of a real bundle is refused (never a crash, never a partial bundle).
        let bytes = BundleFixtureRecipes.valid().encoded()
        for index in bytes.indices {
            var flipped = bytes
            flipped[index] ^= 0x10
            #expect(throws: ConcordError.self, "bit flipped at \(index)") { try SyncBundle.decode(flipped) }
        }
        for length in 0..<bytes.count {
            #expect(throws: ConcordError.self, "cut at \(length)") { try SyncBundle.decode(Array(bytes.prefix(length))) }
        }
        #expect(throws: ConcordError.bundle(.malformed, "1 unexpected bytes follow the end of the bundle (\(bytes.count) bytes)")) {
            try SyncBundle.decode(bytes + [0])
        }
    }

    @Test func wellSealedNonsenseIsRefusedToo() throws {
        // Content errors a checksum cannot catch: the bundle is intact but describes something impossible.
        func sealed(_ batch: RemoteBatch) -> [UInt8] { SyncBundle(batch: batch, createdMilliseconds: 1).encoded() }
        let src = BundleFixtureRecipes.source
        let v = Version(hlc: 1 << 16, replica: src)
        let entry = { (seq: UInt64, suite: String, key: String) in RemoteEntry(seq: seq, suite: suite, key: key, record: Record(version: v, valueBytes: nil)) }
        let cases: [(String, RemoteBatch)] = [
            ("seq outside the range", RemoteBatch(source: src, selection: .all, fromSeq: 0, toSeq: 1, entries: [entry(2, "s", "k")], knowledge: .none)),
            (
                "seqs out of order",
                RemoteBatch(source: src, selection: .all, fromSeq: 0, toSeq: 9, entries: [entry(5, "s", "a"), entry(4, "s", "b")], knowledge: .none)
            ),
            (
                "a key twice",
                RemoteBatch(source: src, selection: .all, fromSeq: 0, toSeq: 9, entries: [entry(1, "s", "k"), entry(2, "s", "k")], knowledge: .none)
            ),
            ("bad suite name", RemoteBatch(source: src, selection: .all, fromSeq: 0, toSeq: 9, entries: [entry(1, "no spaces", "k")], knowledge: .none)),
            (
                "suite not covered",
                RemoteBatch(source: src, selection: try! SyncSelection(suites: ["x"]), fromSeq: 0, toSeq: 9, entries: [entry(1, "s", "k")], knowledge: .none)
            ),
            ("zero source", RemoteBatch(source: .zero, selection: .all, fromSeq: 0, toSeq: 0, entries: [], knowledge: .none))
        ]
        for (what, batch) in cases {
            let error = #expect(throws: ConcordError.self, "\(what)") { try SyncBundle.decode(sealed(batch)) }
            #expect(error?.code == .malformed, "\(what): \(String(describing: error))")
        }
        var record = try Record(version: v, value: .string("x")).encoded
        record[record.count - 1] = 0xFF // not a valid value encoding
        var w = SyncBundle(
            batch: RemoteBatch(
                source: src, selection: .all, fromSeq: 0, toSeq: 1,
                entries: [RemoteEntry(seq: 1, suite: "s", key: "k", record: try Record(version: v, value: .string("x")))], knowledge: .none),
            createdMilliseconds: 1
        ).encoded()
        let at = w.count - 4 - record.count
        w.replaceSubrange(at..<(w.count - 4), with: record)
        let error = #expect(throws: ConcordError.self) { try SyncBundle.decode(BundleFixtureRecipes.resealed(w)) }
        #expect(error?.code == .malformed && error?.message.contains("does not decode") == true, "\(String(describing: error))")
    }

    @Test func exportSincePeerSendsOnlyWhatThePeerLacks() throws {
        let tmp = try TemporaryDirectory("bundles")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        for i in 0..<10 { try a.suite("s").set(i, forKey: "k\(i)") }
        let all = tmp.path("all.bundle")
        #expect(try BundleExchange.export(from: a, since: .beginning, to: all).entries == 10)
        #expect(try BundleExchange.importBundle(at: all, into: b).recordsChanged == 10)
        try a.suite("s").set(100, forKey: "k1")
        try a.suite("other").set(1, forKey: "x")
        // From B's own cursors (B's directory at hand): only the two new changes.
        let delta = tmp.path("delta.bundle")
        #expect(try BundleExchange.export(from: a, since: .receivedBy(b), to: delta).entries == 2)
        // Only one suite.
        #expect(try BundleExchange.export(from: a, since: .receivedBy(b), selection: SyncSelection(suites: ["other"]), to: delta).entries == 1)
        // By B's id: A's cursors know what B acknowledged only once a bundle from B told A.
        #expect(try BundleExchange.export(from: a, since: .acknowledgedBy(b.replicaID), to: delta).entries == 11, "every key")
        let back = tmp.path("back.bundle")
        try BundleExchange.export(from: b, since: .beginning, to: back)
        try BundleExchange.importBundle(at: back, into: a)
        #expect(try BundleExchange.export(from: a, since: .acknowledgedBy(b.replicaID), to: delta).entries == 2)
        try BundleExchange.export(from: a, since: .acknowledgedBy(b.replicaID), to: delta)
        try BundleExchange.importBundle(at: delta, into: b)
        #expect(try Replicas.bytes(a) == Replicas.bytes(b))
    }

    @Test func aBundleAfterAGapIsMergedButDoesNotMoveTheCursor() throws {
        let tmp = try TemporaryDirectory("bundles")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        try a.suite("s").set(1, forKey: "first")
        let one = try BundleExchange.makeBundle(from: a, since: .beginning).bundle
        try a.suite("s").set(2, forKey: "second")
        // A bundle of only what came after the first (as if the first were lost in the mail).
        let later = RemoteBatch(
            source: a.replicaID, selection: .all, fromSeq: one.batch.toSeq, toSeq: try a.lastSeq(),
            entries: try a.journalEntries(after: one.batch.toSeq).map {
                RemoteEntry(seq: $0.seq, suite: $0.suite, key: $0.key, record: $0.record)
            }, knowledge: .none)
        let report = try BatchApplier(store: b).apply(later)
        #expect(report.recordsChanged == 1 && !report.cursorAdvanced)
        #expect(try b.peerCursors().received(from: a.replicaID, scope: .allSuites) == 0)
        try Synchronizer().sync(a, b)
        #expect(try b.suite("s").keys() == ["first", "second"], "the gap is filled by the next sync")
    }
}
