import Foundation

/// The deterministic binary encoding of `Value`: a tag byte, then the payload.
/// Integers are big-endian, lengths are LEB128 varints, dictionaries are sorted by key,
/// so equal values always encode to identical bytes (merges compare bytes).
/// NaN is refused: it is not equal to itself, so it could not be compared or merged.
///
/// Dates are written as the bits of `timeIntervalSinceReferenceDate`, which is what `Date` holds,
/// so they read back `==`; the first format's dates (seconds since 1970) are still read.
/// A `Float` is its 32 bits, a UUID its 16 bytes. Tags are handed out in order, a few with a format
/// (format 4 added two): a tag at most `newerTagWindow` past the newest this build knows is reported as
/// written by a newer Concord, so an old reader fails clearly instead of guessing; any other unknown
/// tag (0, or far past the newest) is damage.
///
/// ```swift
/// let bytes = try ValueCodec.encode(.array([.int(1), .string("two")]))
/// let back = try ValueCodec.decode(bytes)
/// ```
package enum ValueCodec {
    /// Collections nested deeper than this are refused (encoding) or reported damaged (decoding).
    package static let maxDepth = 64

    enum Tag: UInt8 {
        case string = 1, int, double, bool, data
        /// Seconds since 1970 as a double: written by the first format, read only (it lost precision).
        case date1970
        case url, array, dictionary
        /// Seconds since 2001-01-01 as a double: exactly what `Date` holds.
        case date
        /// A `Float`'s 32 bits. Tags from here on came with store format 4 (bundle format 4): a release
        /// that predates them refuses such stores and bundles as newer, and never misreads a record.
        case float
        /// A UUID's 16 bytes.
        case uuid

        /// The newest tag this build knows: one a little larger comes from a newer Concord.
        static let newest = Tag.uuid
    }

    /// How far past the newest known tag a tag is still taken for a newer Concord's (beyond: damage).
    static let newerTagWindow: UInt8 = 16

    /// Encodes `value`; throws ``ConcordError`` `.unsupportedValue` for NaN or too-deep nesting.
    package static func encode(_ value: Value, key: String = "") throws(ConcordError) -> [UInt8] {
        var out = ByteWriter(capacity: 16)
        try encode(value, into: &out, depth: 0, key: key)
        return out.bytes
    }

    package static func encode(_ value: Value, into out: inout ByteWriter, depth: Int, key: String) throws(ConcordError) {
        guard depth <= maxDepth else {
            throw ConcordError.unsupportedValue(key: key, reason: "collections nested deeper than \(maxDepth) levels")
        }
        switch value {
        case .string(let s):
            out.u8(Tag.string.rawValue)
            out.lengthPrefixed(s.utf8)
        case .int(let i):
            out.u8(Tag.int.rawValue)
            out.u64(UInt64(bitPattern: Int64(i)))
        case .double(let d):
            guard !d.isNaN else { throw ConcordError.unsupportedValue(key: key, reason: "NaN is not equal to itself, so it cannot be stored") }
            out.u8(Tag.double.rawValue)
            out.u64(d.bitPattern)
        case .float(let f):
            guard !f.isNaN else { throw ConcordError.unsupportedValue(key: key, reason: "NaN is not equal to itself, so it cannot be stored") }
            out.u8(Tag.float.rawValue)
            out.u32(f.bitPattern)
        case .uuid(let u):
            out.u8(Tag.uuid.rawValue)
            let b = u.uuid
            for byte in [b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7, b.8, b.9, b.10, b.11, b.12, b.13, b.14, b.15] { out.u8(byte) }
        case .bool(let b):
            out.u8(Tag.bool.rawValue)
            out.u8(b ? 1 : 0)
        case .data(let d):
            out.u8(Tag.data.rawValue)
            out.lengthPrefixed(d)
        case .date(let date):
            let t = date.timeIntervalSinceReferenceDate
            guard !t.isNaN else { throw ConcordError.unsupportedValue(key: key, reason: "a date of NaN seconds cannot be stored") }
            out.u8(Tag.date.rawValue)
            out.u64(t.bitPattern)
        case .url(let url):
            out.u8(Tag.url.rawValue)
            out.lengthPrefixed(url.absoluteString.utf8)
        case .array(let items):
            out.u8(Tag.array.rawValue)
            out.varint(UInt64(items.count))
            for item in items { try encode(item, into: &out, depth: depth + 1, key: key) }
        case .dictionary(let dict):
            out.u8(Tag.dictionary.rawValue)
            out.varint(UInt64(dict.count))
            for k in dict.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                out.lengthPrefixed(k.utf8)
                try encode(dict[k]!, into: &out, depth: depth + 1, key: key)
            }
        }
    }

    /// Decodes a whole buffer; anything malformed (or trailing bytes) is a `ValueDecodingError`.
    package static func decode(_ bytes: [UInt8]) throws(ValueDecodingError) -> Value {
        var reader = ByteReader(bytes)
        return try decodeRest(&reader)
    }

    /// Decodes the value that makes up the rest of `reader`'s bytes (as `decode` does for a whole buffer).
    package static func decodeRest(_ reader: inout ByteReader) throws(ValueDecodingError) -> Value {
        let value = try decode(&reader, depth: 0)
        guard reader.isAtEnd else { throw ValueDecodingError("\(reader.remaining) trailing bytes after the value") }
        return value
    }

    static func decode(_ r: inout ByteReader, depth: Int) throws(ValueDecodingError) -> Value {
        guard depth <= maxDepth else { throw ValueDecodingError("collections nested deeper than \(maxDepth) levels") }
        let raw = try r.u8()
        guard let tag = Tag(rawValue: raw) else {
            guard raw > Tag.newest.rawValue, raw - Tag.newest.rawValue <= newerTagWindow else {
                throw ValueDecodingError("unknown type tag \(raw): the value's bytes are damaged")
            }
            throw ValueDecodingError(
                "a value of type tag \(raw), which a newer version of Concord wrote (this one reads tags up to \(Tag.newest.rawValue)): upgrade Concord to read it",
                writtenByNewerConcord: true)
        }
        switch tag {
        case .string:
            guard let s = ByteReader.utf8String(try r.lengthPrefixed()) else { throw ValueDecodingError("a string that is not valid UTF-8") }
            return .string(s)
        case .int: return .int(Int(Int64(bitPattern: try r.u64())))
        case .double:
            let d = Double(bitPattern: try r.u64())
            guard !d.isNaN else { throw ValueDecodingError("a NaN double") }
            return .double(d)
        case .float:
            let f = Float(bitPattern: try r.u32())
            guard !f.isNaN else { throw ValueDecodingError("a NaN float") }
            return .float(f)
        case .uuid:
            var bytes: [UInt8] = []
            for _ in 0..<16 { bytes.append(try r.u8()) }
            let u = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            return .uuid(u)
        case .bool:
            switch try r.u8() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            case let b: throw ValueDecodingError("a bool byte of \(b)")
            }
        case .data: return .data(Data(try r.lengthPrefixed()))
        case .date, .date1970:
            let t = Double(bitPattern: try r.u64())
            guard !t.isNaN else { throw ValueDecodingError("a NaN date") }
            return .date(tag == .date ? Date(timeIntervalSinceReferenceDate: t) : Date(timeIntervalSince1970: t))
        case .url:
            guard let s = ByteReader.utf8String(try r.lengthPrefixed()), let url = URL(string: s) else {
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
                guard let k = ByteReader.utf8String(try r.lengthPrefixed()) else { throw ValueDecodingError("a dictionary key that is not valid UTF-8") }
                guard dict[k] == nil else { throw ValueDecodingError("a dictionary with the key \"\(k)\" twice") }
                dict[k] = try decode(&r, depth: depth + 1)
            }
            return .dictionary(dict)
        }
    }
}
