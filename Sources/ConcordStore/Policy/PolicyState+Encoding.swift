/// A policy state's bytes: the payload of a record whose flags byte is 2. Every list is sorted and
/// holds each replica (or member) once, so equal states have equal bytes on every replica.
///
/// ```
/// policy u8 (0 lww, 1 counter, 2 max, 3 min, 4 set)
/// base u8 (0 none, 1 value, 2 removal, 3 expiring value) [hlc u64, replica 16, prior u8 (0 unknown, 1 none, 2 base [hlc u64, replica 16]),
///      expiry u64 (milliseconds since 1970) if 3, value (varint length, bytes) if 1 or 3]
/// counters varint, each: replica 16, hlc u64, total i64, removed hlc u64, removed total i64
/// set seen varint, each: replica 16, hlc u64
/// members varint, each: value (varint length, bytes), tags varint (≥ 1), each: hlc u64, replica 16
/// highs varint, each: replica 16, hlc u64, value (varint length, bytes); lows the same
/// ```
extension PolicyState {
    package func encode(into out: inout ByteWriter) {
        out.u8(policy.code)
        if let base {
            let expiry = base.value == nil ? nil : base.expiryMilliseconds
            out.u8(base.value == nil ? 2 : expiry == nil ? 1 : 3)
            Self.write(base.version, &out)
            switch base.prior {
            case .unknown: out.u8(0)
            case .none: out.u8(1)
            case .base(let version):
                out.u8(2)
                Self.write(version, &out)
            }
            if let expiry { out.u64(expiry) }
            if let value = base.value { out.lengthPrefixed(value) }
        } else {
            out.u8(0)
        }
        out.varint(UInt64(counters.count))
        for c in counters {
            out.append(c.replica.bytes)
            out.u64(c.hlc)
            out.u64(UInt64(bitPattern: Int64(c.total)))
            out.u64(c.removedHLC)
            out.u64(UInt64(bitPattern: Int64(c.removedTotal)))
        }
        out.varint(UInt64(setSeen.count))
        for s in setSeen {
            out.append(s.replica.bytes)
            out.u64(s.hlc)
        }
        out.varint(UInt64(members.count))
        for m in members {
            out.lengthPrefixed(m.value)
            out.varint(UInt64(m.tags.count))
            for tag in m.tags { Self.write(tag, &out) }
        }
        for list in [highs, lows] {
            out.varint(UInt64(list.count))
            for p in list {
                out.append(p.replica.bytes)
                out.u64(p.hlc)
                out.lengthPrefixed(p.value)
            }
        }
    }

    package var encoded: [UInt8] {
        var out = ByteWriter(capacity: 64)
        encode(into: &out)
        return out.bytes
    }

    /// Reads a state from the rest of `r`, checking its order and (with `validateValues`) that every value decodes.
    package static func decode(_ r: inout ByteReader, validateValues: Bool = true) throws(ValueDecodingError) -> PolicyState {
        let code = try r.u8()
        guard let policy = MergePolicy(code: code) else {
            guard MergePolicy.isPlausiblyNewer(code: code) else { throw ValueDecodingError("unknown merge policy \(code): the state's bytes are damaged") }
            throw ValueDecodingError(
                "a merge policy of code \(code), which a newer version of Concord wrote: upgrade Concord to read it", writtenByNewerConcord: true)
        }
        var state = PolicyState(policy: policy)
        let baseKind = try r.u8()
        switch baseKind {
        case 0: break
        case 1, 2, 3:
            let version = try readVersion(&r)
            let prior: Prior
            switch try r.u8() {
            case 0: prior = .unknown
            case 1: prior = .none
            case 2: prior = .base(try readVersion(&r))
            case let other: throw ValueDecodingError("a base whose prior is of unknown kind \(other)")
            }
            let expiry = baseKind == 3 ? try r.u64() : nil
            let value = baseKind != 2 ? try readValue(&r, validateValues) : nil
            state.base = Base(version: version, value: value, prior: prior, expiryMilliseconds: expiry)
        default: throw ValueDecodingError("a base of unknown kind \(baseKind)")
        }
        for _ in 0..<(try r.count(minimumBytesEach: 48)) {
            let entry = CounterEntry(
                replica: try readReplica(&r), hlc: try r.u64(), total: Int(Int64(bitPattern: try r.u64())),
                removedHLC: try r.u64(), removedTotal: Int(Int64(bitPattern: try r.u64())))
            guard state.counters.last.map({ $0.replica < entry.replica }) ?? true else { throw ValueDecodingError("counter entries out of order") }
            state.counters.append(entry)
        }
        for _ in 0..<(try r.count(minimumBytesEach: 24)) {
            let seen = Observed(replica: try readReplica(&r), hlc: try r.u64())
            guard state.setSeen.last.map({ $0.replica < seen.replica }) ?? true else { throw ValueDecodingError("set replicas out of order") }
            state.setSeen.append(seen)
        }
        for _ in 0..<(try r.count(minimumBytesEach: 27)) {
            let value = try readValue(&r, validateValues)
            let count = try r.count(minimumBytesEach: 24)
            guard count > 0 else { throw ValueDecodingError("a set member without tags") }
            var tags: [Version] = []
            for _ in 0..<count {
                let tag = try readVersion(&r)
                guard tags.last.map({ $0 < tag }) ?? true else { throw ValueDecodingError("set tags out of order") }
                tags.append(tag)
            }
            guard state.members.last.map({ $0.value.lexicographicallyPrecedes(value) }) ?? true else { throw ValueDecodingError("set members out of order") }
            state.members.append(Member(value: value, tags: tags))
        }
        for high in [true, false] {
            var list: [Proposal] = []
            for _ in 0..<(try r.count(minimumBytesEach: 26)) {
                let p = Proposal(replica: try readReplica(&r), hlc: try r.u64(), value: try readValue(&r, validateValues))
                guard list.last.map({ $0.replica < p.replica }) ?? true else { throw ValueDecodingError("max/min proposals out of order") }
                list.append(p)
            }
            if high { state.highs = list } else { state.lows = list }
        }
        guard r.isAtEnd else { throw ValueDecodingError("\(r.remaining) trailing bytes after a policy state") }
        return state
    }

    private static func write(_ version: Version, _ out: inout ByteWriter) {
        out.u64(version.hlc)
        out.append(version.replica.bytes)
    }

    private static func readVersion(_ r: inout ByteReader) throws(ValueDecodingError) -> Version {
        let hlc = try r.u64()
        return Version(hlc: hlc, replica: try readReplica(&r))
    }

    private static func readReplica(_ r: inout ByteReader) throws(ValueDecodingError) -> ReplicaID {
        ReplicaID(bytes: Array(try r.take(16)))!
    }

    private static func readValue(_ r: inout ByteReader, _ validate: Bool) throws(ValueDecodingError) -> [UInt8] {
        let bytes = Array(try r.lengthPrefixed())
        if validate { _ = try ValueCodec.decode(bytes) }
        return bytes
    }
}
