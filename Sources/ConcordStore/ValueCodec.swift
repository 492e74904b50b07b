import Foundation

/// The deterministic binary encoding of `Value`: a tag byte, then the payload.
/// Integers are big-endian, lengths are LEB128 varints, dictionaries are sorted by key,
/// so equal values always encode to identical bytes (merges compare bytes).
/// NaN is refused: it is not equal to itself, so it could not be compared or merged.
public enum ValueCodec {
    /// Collections nested deeper than this are refused (encoding) or reported damaged (decoding).
    public static let maxDepth = 64

    enum Tag: UInt8 {
        case string = 1, int, double, bool, data, date, url, array, dictionary
    }

    /// Encodes `value`; throws `StoreError.unsupportedValue` for NaN or too-deep nesting.
    public static func encode(_ value: Value, key: String = "") throws -> [UInt8] {
        var out: [UInt8] = []
        if case .string(let s) = value { out.reserveCapacity(s.utf8.count + 6) } else { out.reserveCapacity(16) }
        try encode(value, into: &out, depth: 0, key: key)
        return out
    }

    static func encode(_ value: Value, into out: inout [UInt8], depth: Int, key: String) throws {
        guard depth <= maxDepth else {
            throw StoreError.unsupportedValue(key: key, reason: "collections nested deeper than \(maxDepth) levels")
        }
        switch value {
        case .string(let s):
            out.append(Tag.string.rawValue); appendBytes(s.utf8, to: &out)
        case .int(let i):
            out.append(Tag.int.rawValue); appendUInt64(UInt64(bitPattern: Int64(i)), to: &out)
        case .double(let d):
            guard !d.isNaN else { throw StoreError.unsupportedValue(key: key, reason: "NaN is not equal to itself, so it cannot be stored") }
            out.append(Tag.double.rawValue); appendUInt64(d.bitPattern, to: &out)
        case .bool(let b):
            out.append(Tag.bool.rawValue); out.append(b ? 1 : 0)
        case .data(let d):
            out.append(Tag.data.rawValue); appendBytes([UInt8](d), to: &out)
        case .date(let date):
            let t = date.timeIntervalSince1970
            guard !t.isNaN else { throw StoreError.unsupportedValue(key: key, reason: "a date of NaN seconds cannot be stored") }
            out.append(Tag.date.rawValue); appendUInt64(t.bitPattern, to: &out)
        case .url(let url):
            out.append(Tag.url.rawValue); appendBytes(url.absoluteString.utf8, to: &out)
        case .array(let items):
            out.append(Tag.array.rawValue); appendVarint(UInt64(items.count), to: &out)
            for item in items { try encode(item, into: &out, depth: depth + 1, key: key) }
        case .dictionary(let dict):
            out.append(Tag.dictionary.rawValue); appendVarint(UInt64(dict.count), to: &out)
            for k in dict.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                appendBytes(k.utf8, to: &out)
                try encode(dict[k]!, into: &out, depth: depth + 1, key: key)
            }
        }
    }

    /// Decodes a whole buffer; anything malformed (or trailing bytes) is `DecodingError`.
    public static func decode(_ bytes: [UInt8]) throws(ValueDecodingError) -> Value {
        var reader = ByteReader(bytes)
        return try decodeRest(&reader)
    }

    /// Decodes the value that makes up the rest of `reader`'s bytes (as `decode` does for a whole buffer).
    static func decodeRest(_ reader: inout ByteReader) throws(ValueDecodingError) -> Value {
        let value = try decode(&reader, depth: 0)
        guard reader.isAtEnd else { throw ValueDecodingError("\(reader.remaining) trailing bytes after the value") }
        return value
    }

    /// `String(validating:as: UTF8.self)`, skipping its generic validation when every byte is ASCII
    /// (always valid UTF-8), which is the common case for keys and settings.
    static func utf8String(_ bytes: ArraySlice<UInt8>) -> String? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    static func decode(_ r: inout ByteReader, depth: Int) throws(ValueDecodingError) -> Value {
        guard depth <= maxDepth else { throw ValueDecodingError("collections nested deeper than \(maxDepth) levels") }
        let raw = try r.byte()
        guard let tag = Tag(rawValue: raw) else { throw ValueDecodingError("unknown type tag \(raw)") }
        switch tag {
        case .string:
            guard let s = utf8String(try r.lengthPrefixed()) else { throw ValueDecodingError("a string that is not valid UTF-8") }
            return .string(s)
        case .int: return .int(Int(Int64(bitPattern: try r.uint64())))
        case .double:
            let d = Double(bitPattern: try r.uint64())
            guard !d.isNaN else { throw ValueDecodingError("a NaN double") }
            return .double(d)
        case .bool:
            switch try r.byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            case let b: throw ValueDecodingError("a bool byte of \(b)")
            }
        case .data: return .data(Data(try r.lengthPrefixed()))
        case .date:
            let t = Double(bitPattern: try r.uint64())
            guard !t.isNaN else { throw ValueDecodingError("a NaN date") }
            return .date(Date(timeIntervalSince1970: t))
        case .url:
            guard let s = utf8String(try r.lengthPrefixed()), let url = URL(string: s) else {
                throw ValueDecodingError("a URL that does not parse")
            }
            return .url(url)
        case .array:
            let n = try r.count(minimumBytesEach: 1)
            var items: [Value] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try decode(&r, depth: depth + 1)) }
            return .array(items)
        case .dictionary:
            let n = try r.count(minimumBytesEach: 2)
            var dict: [String: Value] = [:]
            dict.reserveCapacity(n)
            for _ in 0..<n {
                guard let k = utf8String(try r.lengthPrefixed()) else { throw ValueDecodingError("a dictionary key that is not valid UTF-8") }
                guard dict[k] == nil else { throw ValueDecodingError("a dictionary with the key \"\(k)\" twice") }
                dict[k] = try decode(&r, depth: depth + 1)
            }
            return .dictionary(dict)
        }
    }

    static func appendUInt64(_ v: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) }
    }
    static func appendVarint(_ v: UInt64, to out: inout [UInt8]) {
        var v = v
        while v >= 0x80 { out.append(UInt8(v & 0x7f) | 0x80); v >>= 7 }
        out.append(UInt8(v))
    }
    static func appendBytes<Bytes: Collection<UInt8>>(_ bytes: Bytes, to out: inout [UInt8]) {
        appendVarint(UInt64(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }
}

/// What was wrong with bytes that should have held a value (or another stored structure).
public struct ValueDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Reads a byte array front to back, checking every length against what is left.
struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func byte() throws(ValueDecodingError) -> UInt8 {
        guard offset < bytes.count else { throw ValueDecodingError("truncated: expected 1 more byte") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint64() throws(ValueDecodingError) -> UInt64 {
        guard remaining >= 8 else { throw ValueDecodingError("truncated: expected 8 more bytes") }
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[offset + i]) }
        offset += 8
        return v
    }

    mutating func uint16() throws(ValueDecodingError) -> UInt16 {
        guard remaining >= 2 else { throw ValueDecodingError("truncated: expected 2 more bytes") }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func take(_ n: Int) throws(ValueDecodingError) -> ArraySlice<UInt8> {
        guard n >= 0, remaining >= n else { throw ValueDecodingError("truncated: expected \(n) more bytes, found \(remaining)") }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    mutating func varint() throws(ValueDecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64 else { throw ValueDecodingError("a length varint longer than 64 bits") }
            result |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func lengthPrefixed() throws(ValueDecodingError) -> ArraySlice<UInt8> {
        let n = try varint()
        guard n <= UInt64(remaining) else { throw ValueDecodingError("truncated: a length of \(n) with \(remaining) bytes left") }
        return try take(Int(n))
    }

    /// A count of items, each at least `minimumBytesEach` bytes: a count the remaining bytes cannot hold is damage.
    mutating func count(minimumBytesEach: Int) throws(ValueDecodingError) -> Int {
        let n = try varint()
        guard n <= UInt64(remaining / minimumBytesEach) else { throw ValueDecodingError("a count of \(n) items in \(remaining) bytes") }
        return Int(n)
    }
}
