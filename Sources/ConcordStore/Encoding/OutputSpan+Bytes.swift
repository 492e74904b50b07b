/// The pieces `ByteWriter.fixed` writes a structure of known size with, in one step: the same
/// big-endian integers and copied bytes as `ByteWriter`'s own.
extension OutputSpan<UInt8> {
    mutating func u8(_ v: UInt8) { append(v) }

    mutating func u16(_ v: UInt16) {
        append(UInt8(truncatingIfNeeded: v >> 8))
        append(UInt8(truncatingIfNeeded: v))
    }

    mutating func u64(_ v: UInt64) {
        var shift: UInt64 = 64
        while shift > 0 {
            shift -= 8
            append(UInt8(truncatingIfNeeded: v >> shift))
        }
    }

    mutating func bytes(_ more: [UInt8]) {
        for byte in more { append(byte) }
    }

    mutating func utf8(_ span: Span<UInt8>) {
        for i in span.indices { append(span[i]) }
    }
}
