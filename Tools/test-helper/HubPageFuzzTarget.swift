import Concord
import ConcordHub
import Foundation
import SplitMix
import Synchronization

/// The hub-page fuzz target: a page of hub rows (what an account's role can write: any suite and key
/// text, version, value and policy bytes) goes through the hub client's own row reading and gate
/// (`HubRow.entry(gate:)`), and what passes is merged into a replica by `BatchApplier`, as a pull does.
/// It must never crash, and nothing unsound may be stored: every stored record is checked here, apart
/// from the gate, against the store's own rules (names, the version bound, the value's size and that it
/// decodes), and the replica stays sound (`Store.check`, every 256 pages).
///
/// A page's bytes (this target's own framing, so mutations reach every field): row count u8; per row
/// seq u64, suite u16 length + bytes, key u16 length + bytes, version u8 length + bytes, value
/// present u8 (+ u32 length + bytes), policy u8.
enum HubPageFuzzTarget {
    static let target = FuzzTarget(name: "hub-page", seed: { encode(try RandomHubPage.make(&$0)) }, decode: decode)
    static let hub = ReplicaID(bytes: Array("concord-fuzz-hub".utf8))!

    /// The replica pages merge into (one per process, no fsync), removed when the process exits.
    static let replica: Store = {
        var options = Store.Options()
        options.durability = .none
        let store = try! Store.temporary(options: options)
        replicaDirectory.withLock { $0 = store.directory }
        atexit { if let directory = HubPageFuzzTarget.replicaDirectory.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: directory) } }
        return store
    }()
    static let replicaDirectory = Mutex<String?>(nil)
    static let pages = Atomic<Int>(0)

    static func decode(_ bytes: [UInt8]) throws {
        let rows = try parse(bytes)
        let gate = RecordGate(store: replica)
        var entries: [RemoteEntry] = []
        var keys = Set<SuiteKey>()
        for row in rows {
            switch row.entry(gate: gate) {
            case .success(let entry):
                // A hub page holds each (suite, key) once (its primary key); a mutated one may not.
                if keys.insert(SuiteKey(suite: entry.suite, key: entry.key)).inserted { entries.append(entry) }
            case .failure(let refused):
                guard refused.description.utf8.count < 20_000 else { throw FuzzFailure(description: "a refusal's message is unbounded") }
            }
        }
        guard !entries.isEmpty else { throw ValueDecodingError("the gate refused every row") }
        let batch = RemoteBatch(source: hub, selection: .all, fromSeq: 0, toSeq: 0, entries: entries, knowledge: .none)
        do { try BatchApplier(store: replica).apply(batch) } catch let error as ConcordError {
            throw FuzzFailure(description: "rows the gate passed were refused when merged: \(error)")
        }
        for entry in entries {
            let read: Record?
            do { read = try replica.read { try $0.record(suite: entry.suite, key: entry.key) } } catch {
                throw FuzzFailure(description: "a merged row does not read back: \(error)")
            }
            guard let stored = read else { throw FuzzFailure(description: "a merged row is not stored: \(entry.suite)/\(entry.key)") }
            if let unsound = unsound(stored, suite: entry.suite, key: entry.key) {
                throw FuzzFailure(description: "an unsound record was stored at \(entry.suite)/\(entry.key): \(unsound)")
            }
        }
        if pages.add(1, ordering: .relaxed).newValue % 256 == 0 {
            let report: IntegrityReport
            do { report = try replica.integrityReport() } catch { throw FuzzFailure(description: "the replica cannot be checked: \(error)") }
            guard report.isSound else { throw FuzzFailure(description: "the replica is damaged: \(report.problems.prefix(3))") }
        }
    }

    /// What is wrong with a stored record by the store's own rules, checked without the gate.
    static func unsound(_ record: Record, suite: String, key: String) -> String? {
        if (try? Names.validateSuite(suite)) == nil { return "the suite name breaks the rules" }
        if (try? Names.validateNewKey(key, inSuite: suite)) == nil { return "the key breaks the rules" }
        if record.version.hlc > HybridClock.maxHLC || (record.state?.greatestHLC ?? 0) > HybridClock.maxHLC { return "a version past the bound" }
        let size = record.valueBytes?.count ?? record.state?.encoded.count ?? 0
        if size > replica.options.maxValueBytes { return "a value of \(size) bytes" }
        do {
            _ = try record.value()
            try record.state?.forEachValue { bytes throws(ValueDecodingError) in _ = try ValueCodec.decode(bytes) }
        } catch {
            return "a value that does not decode: \(error)"
        }
        if (try? Record.decode(record.encoded)) != record { return "a record that does not read back as itself" }
        return nil
    }

    static func parse(_ bytes: [UInt8]) throws -> [HubRow] {
        var r = ByteReader(bytes)
        var rows: [HubRow] = []
        for _ in 0..<(try r.u8()) {
            let seq = Int64(bitPattern: try r.u64())
            let suite = Array(try r.take(Int(try r.u16())))
            let key = Array(try r.take(Int(try r.u16())))
            let version = Array(try r.take(Int(try r.u8())))
            let value = try r.u8() == 0 ? nil : Array(try r.take(Int(try r.u32())))
            rows.append(HubRow(seq: seq, suite: suite, key: key, version: version, value: value, policy: try r.u8() != 0))
        }
        guard r.isAtEnd else { throw ValueDecodingError("\(r.remaining) bytes after the last row") }
        return rows
    }

    static func encode(_ rows: [HubRow]) -> [UInt8] {
        var w = ByteWriter()
        w.u8(UInt8(rows.count))
        for row in rows {
            w.u64(UInt64(bitPattern: row.seq))
            w.u16(UInt16(row.suite.count))
            w.append(row.suite)
            w.u16(UInt16(row.key.count))
            w.append(row.key)
            w.u8(UInt8(row.version.count))
            w.append(row.version)
            if let value = row.value {
                w.u8(1)
                w.u32(UInt32(value.count))
                w.append(value)
            } else {
                w.u8(0)
            }
            w.u8(row.policy ? 1 : 0)
        }
        return w.bytes
    }
}

/// Random sound hub pages (plain values, tombstones, policy states, declarations) as seeds for the mutator.
enum RandomHubPage {
    static func make(_ random: inout SeededRandom) throws -> [HubRow] {
        var rows: [HubRow] = []
        for i in 0..<(1 + random.below(6)) {
            let suite = ["prefs", "app", "group.x", "_concord"][random.below(4)]
            let key = suite == "_concord" ? "policy:prefs:k\(random.below(30))" : "k\(random.below(30))"
            let hlc = (UInt64(1_700_000_000_000) + UInt64(random.below(1 << 30))) << 16 | UInt64(random.below(1 << 16))
            let writer = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let version = (0..<8).map { UInt8(truncatingIfNeeded: hlc >> (56 - 8 * UInt64($0))) } + writer
            var value: [UInt8]?
            var policy = false
            switch random.below(4) {
            case 0: value = nil
            case 1:
                value = try RandomPolicyRecord.make(&random).state?.encoded
                policy = true
            default: value = try ValueCodec.encode(suite == "_concord" ? .string("counter") : RandomValue.make(&random, depth: 2))
            }
            rows.append(HubRow(seq: Int64(i + 1), suite: Array(suite.utf8), key: Array(key.utf8), version: version, value: value, policy: policy))
        }
        return rows
    }
}
