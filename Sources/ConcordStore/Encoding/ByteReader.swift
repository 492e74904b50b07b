/// Reads what `ByteWriter` wrote, front to back, checking every length against what is left:
/// damaged or hostile bytes give a `ValueDecodingError` naming what was wrong, never a crash.
///
/// <!-- assume: let bytes: [UInt8] = [] -->
/// ```swift
/// var r = ByteReader(bytes)
/// let seq = try r.u64()
/// let suite = try r.string(lengthBytes: 1)
/// guard r.isAtEnd else { throw ValueDecodingError("\(r.remaining) trailing bytes") }
/// ```
package struct ByteReader: Sendable {
    package let bytes: [UInt8]
    package var offset: Int

    package init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    package var isAtEnd: Bool { offset == bytes.count }
    package var remaining: Int { bytes.count - offset }

    package mutating func u8() throws(ValueDecodingError) -> UInt8 {
        guard offset < bytes.count else { throw ValueDecodingError("truncated: expected 1 more byte") }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u16() throws(ValueDecodingError) -> UInt16 { UInt16(try fixed(2)) }
    package mutating func u32() throws(ValueDecodingError) -> UInt32 { UInt32(try fixed(4)) }
    package mutating func u64() throws(ValueDecodingError) -> UInt64 { try fixed(8) }

    private mutating func fixed(_ width: Int) throws(ValueDecodingError) -> UInt64 {
        guard remaining >= width else { throw ValueDecodingError("truncated: expected \(width) more bytes, found \(remaining)") }
        var v: UInt64 = 0
        for i in 0..<width { v = v << 8 | UInt64(bytes[offset + i]) }
        offset += width
        return v
    }

    package mutating func take(_ n: Int) throws(ValueDecodingError) -> ArraySlice<UInt8> {
        guard n >= 0, remaining >= n else { throw ValueDecodingError("truncated: expected \(n) more bytes, found \(remaining)") }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    /// An unsigned LEB128 varint.
    package mutating func varint() throws(ValueDecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try u8()
            guard shift < 64 else { throw ValueDecodingError("a length varint longer than 64 bits") }
            result |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Bytes preceded by their length as a varint.
    package mutating func lengthPrefixed() throws(ValueDecodingError) -> ArraySlice<UInt8> {
        let n = try varint()
        guard n <= UInt64(remaining) else { throw ValueDecodingError("truncated: a length of \(n) with \(remaining) bytes left") }
        return try take(Int(n))
    }

    /// A UTF-8 string preceded by its byte count in `lengthBytes` (1, 2 or 4) big-endian bytes.
    package mutating func string(lengthBytes: Int) throws(ValueDecodingError) -> String {
        let n = lengthBytes == 1 ? Int(try u8()) : lengthBytes == 2 ? Int(try u16()) : Int(try u32())
        guard let s = Self.utf8String(try take(n)) else { throw ValueDecodingError("a name that is not valid UTF-8") }
        return s
    }

    /// A count of items, each at least `minimumBytesEach` bytes: a count the remaining bytes cannot hold is damage.
    package mutating func count(minimumBytesEach: Int) throws(ValueDecodingError) -> Int {
        let n = try varint()
        guard n <= UInt64(remaining / minimumBytesEach) else { throw ValueDecodingError("a count of \(n) items in \(remaining) bytes") }
        return Int(n)
    }

    /// `String(validating:as: UTF8.self)`, skipping its generic validation when every byte is ASCII
    /// (always valid UTF-8), which is the common case for keys and settings.
    package static func utf8String(_ bytes: ArraySlice<UInt8>) -> String? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// What was wrong with bytes that should have held a value (or another stored structure).
///
/// Reads that meet one turn it into a ``ConcordError`` naming the store, suite and key.
package struct ValueDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong.
    package let reason: String
    /// True when the bytes are plausibly a newer Concord's (a type tag or merge policy just past the
    /// newest this build knows), not damage: upgrading would read them.
    package let writtenByNewerConcord: Bool
    /// A decoding error saying `reason`.
    package init(_ reason: String) { self.init(reason, writtenByNewerConcord: false) }
    package init(_ reason: String, writtenByNewerConcord: Bool) {
        self.reason = reason
        self.writtenByNewerConcord = writtenByNewerConcord
    }
    package var description: String { reason }
}
