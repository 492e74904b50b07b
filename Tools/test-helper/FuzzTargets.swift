import Concord
import Foundation
import SplitMix

/// A decoder the reliability suite fuzzes: how to make valid inputs for it, and how to decode one.
/// `decode` must throw for bad input and never crash or hang; it throws `FuzzFailure` when a
/// decoded value breaks a property that must hold (it survives encoding and decoding again).
struct FuzzTarget: Sendable {
    let name: String
    let seed: @Sendable (inout SeededRandom) throws -> [UInt8]
    let decode: @Sendable ([UInt8]) throws -> Void
}

/// A property a decoded input broke (a failure to report, unlike the errors bad input throws).
struct FuzzFailure: Error, CustomStringConvertible {
    let description: String
}

/// Every fuzzed decoder. A new decoder is one more line here (its name is a folder in fixtures/fuzz/).
enum FuzzTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "value", seed: { try ValueCodec.encode(RandomValue.make(&$0, depth: 0)) }, decode: decodeValue),
        FuzzTarget(name: "json", seed: { Array(JSONValue.render(RandomValue.make(&$0, depth: 0)).utf8) }, decode: parseJSON),
        FuzzTarget(name: "bundle", seed: { try RandomBundle.make(&$0).encoded() }, decode: decodeBundle),
        FuzzTarget(name: "policy-record", seed: { try RandomPolicyRecord.make(&$0).encoded }, decode: decodePolicyRecord),
        HubPageFuzzTarget.target
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    static func decodeValue(_ bytes: [UInt8]) throws {
        let value = try ValueCodec.decode(bytes)
        let again = try ValueCodec.decode(try ValueCodec.encode(value))
        guard again == value else { throw FuzzFailure(description: "a decoded value changed after encoding and decoding it again") }
    }

    static func parseJSON(_ bytes: [UInt8]) throws {
        let value = try JSONValue.parse(Data(bytes))
        let again = try JSONValue.parse(JSONValue.render(value))
        guard again == value else { throw FuzzFailure(description: "a parsed value changed after rendering and parsing it again") }
    }
}

extension FuzzTargets {
    static func decodeBundle(_ bytes: [UInt8]) throws {
        let bundle = try SyncBundle.decode(bytes)
        let again = try SyncBundle.decode(bundle.encoded())
        guard again == bundle else { throw FuzzFailure(description: "a decoded bundle changed after encoding and decoding it again") }
    }
}

extension FuzzTargets {
    /// A record of any kind (a policy record's state is the part fuzzed): it decodes or is refused,
    /// round-trips, reads, and merges with itself and with another record the same either way.
    static func decodePolicyRecord(_ bytes: [UInt8]) throws {
        let record = try Record.decode(bytes)
        guard try Record.decode(record.encoded) == record else {
            throw FuzzFailure(description: "a decoded record changed after encoding and decoding it again")
        }
        _ = try? record.value()
        let other = try Record(version: Version(hlc: record.version.hlc / 2 + 1, replica: .zero), value: .int(1))
        guard RecordMerge.merge(record, other) == RecordMerge.merge(other, record) else {
            throw FuzzFailure(description: "merging a decoded record with a plain one depends on the order")
        }
        guard try Record.decode(RecordMerge.merge(record, record).encoded) == RecordMerge.merge(record, record) else {
            throw FuzzFailure(description: "a record merged with itself does not round-trip")
        }
    }
}

/// Random policy records: a state built by a few random writes of every policy, as seeds for the mutator.
enum RandomPolicyRecord {
    static func make(_ random: inout SeededRandom) throws -> Record {
        let replicas = (0..<3).map { i in ReplicaID(bytes: [UInt8](repeating: UInt8(i + 1), count: 16))! }
        var state = PolicyState(policy: MergePolicy.allCases[random.below(MergePolicy.allCases.count)])
        var hlc = UInt64(random.below(1 << 30)) << 16
        for _ in 0..<(1 + random.below(8)) {
            hlc += UInt64(1 + random.below(5))
            let at = Version(hlc: hlc, replica: replicas[random.below(3)])
            switch random.below(5) {
            case 0: state.replaceWhole(with: random.below(3) == 0 ? nil : try ValueCodec.encode(.int(random.below(100))), at: at)
            case 1: try state.increment(by: random.below(9) - 4, at: at, key: "k")
            case 2: state.propose(try ValueCodec.encode(.int(random.below(100))), at: at, high: random.below(2) == 0)
            case 3: state.add([try ValueCodec.encode(.string("m\(random.below(4))"))], at: at)
            default: state.remove([try ValueCodec.encode(.string("m\(random.below(4))"))])
            }
        }
        return Record(version: Version(hlc: hlc, replica: replicas[random.below(3)]), state: state)
    }
}

/// Random valid bundles (a few entries of random records, some tombstones) as seeds for the mutator.
enum RandomBundle {
    static func make(_ random: inout SeededRandom) throws -> SyncBundle {
        func replica() -> ReplicaID { ReplicaID(bytes: (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })! }
        let source = replica()
        var entries: [RemoteEntry] = []
        for seq in 1...UInt64(1 + random.below(6)) {
            let version = Version(hlc: random.next() >> 1, replica: random.below(2) == 0 ? source : replica())
            let value: Value? = random.below(4) == 0 ? nil : RandomValue.make(&random, depth: 2)
            entries.append(
                RemoteEntry(
                    seq: seq, suite: ["app", "group.x", "w-1"][random.below(3)], key: "k\(random.below(50))",
                    record: try Record(version: version, value: value)))
        }
        let knowledge = PeerKnowledge(items: random.below(2) == 0 ? [] : [.init(replica: replica(), scope: .allSuites, seq: UInt64(random.below(100)))])
        let batch = RemoteBatch(source: source, selection: .all, fromSeq: 0, toSeq: UInt64(entries.count), entries: entries, knowledge: knowledge)
        return SyncBundle(batch: batch, createdMilliseconds: UInt64(random.below(1 << 40)))
    }
}

/// Random values of every kind, nested a few levels, as seeds for the mutator.
enum RandomValue {
    static func make(_ random: inout SeededRandom, depth: Int) -> Value {
        switch random.below(depth < 4 ? 9 : 7) {
        case 0: return .string(randomString(&random))
        case 1: return .int(Int(bitPattern: UInt(truncatingIfNeeded: random.next())) >> random.below(64))
        case 2: return .double(Double(Int64(bitPattern: random.next()) >> 20) / Double(1 + random.below(1000)))
        case 3: return .bool(random.below(2) == 0)
        case 4: return .data(Data((0..<random.below(24)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case 5: return .date(Date(timeIntervalSince1970: Double(random.below(4_000_000_000)) / 7))
        case 6: return .url(URL(string: "https://example.com/\(random.below(1000))?q=\(random.below(100))")!)
        case 7: return .array((0..<random.below(5)).map { _ in make(&random, depth: depth + 1) })
        default:
            var dict: [String: Value] = [:]
            for _ in 0..<random.below(5) { dict[randomString(&random)] = make(&random, depth: depth + 1) }
            return .dictionary(dict)
        }
    }

    private static func randomString(_ random: inout SeededRandom) -> String {
        let alphabet: [Unicode.Scalar] = ["a", "b", "z", "0", " ", "\"", "\\", "\n", "\u{1}", "é", "✓", "😀", "\u{7f}"]
        return String(String.UnicodeScalarView((0..<random.below(12)).map { _ in alphabet[random.below(alphabet.count)] }))
    }
}
