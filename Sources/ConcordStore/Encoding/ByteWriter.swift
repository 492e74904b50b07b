/// Builds the store's binary structures front to back: big-endian integers, LEB128 varints and
/// length-prefixed bytes. Every on-disk and on-the-wire structure is written with it, and read back
/// with `ByteReader`.
///
/// <!-- assume: let seq: UInt64 = 7, suite = "prefs" -->
/// ```swift
/// var w = ByteWriter(capacity: 16)
/// w.u64(seq)
/// w.string(suite, lengthBytes: 1)
/// let bytes = w.bytes
/// ```
package struct ByteWriter: Sendable {
    package private(set) var bytes: [UInt8]

    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package var count: Int { bytes.count }

    package mutating func u8(_ v: UInt8) { bytes.append(v) }

    package mutating func u16(_ v: UInt16) { bigEndian(UInt64(v), byteCount: 2) }

    package mutating func u32(_ v: UInt32) { bigEndian(UInt64(v), byteCount: 4) }

    package mutating func u64(_ v: UInt64) { bigEndian(v, byteCount: 8) }

    /// The low `byteCount` bytes of `v`, most significant first, appended in one step.
    private mutating func bigEndian(_ v: UInt64, byteCount: Int) {
        bytes.append(addingCapacity: byteCount) { out in
            var shift = UInt64(8 * byteCount)
            while shift > 0 {
                shift -= 8
                out.append(UInt8(truncatingIfNeeded: v >> shift))
            }
        }
    }

    /// Appends a structure of exactly `count` bytes, written by `body` in one step (no capacity check per byte).
    package mutating func fixed(_ count: Int, _ body: (inout OutputSpan<UInt8>) -> Void) {
        bytes.append(addingCapacity: count, initializingWith: body)
    }

    /// Empties the buffer, keeping its storage for the next structure built in it.
    package mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    /// An unsigned LEB128 varint.
    package mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    package mutating func append<Bytes: Sequence<UInt8>>(_ more: Bytes) { bytes.append(contentsOf: more) }

    /// A string's UTF-8 bytes, preceded by their count as a varint.
    package mutating func lengthPrefixed(_ more: String.UTF8View) {
        varint(UInt64(more.count))
        utf8(more)
    }

    /// `more`, preceded by its length as a varint.
    package mutating func lengthPrefixed<Bytes: Collection<UInt8>>(_ more: Bytes) {
        varint(UInt64(more.count))
        bytes.append(contentsOf: more)
    }

    /// A string's UTF-8 bytes preceded by their count in `lengthBytes` (1, 2 or 4) big-endian bytes.
    /// The caller has checked that the string fits (names and keys are validated before they get here).
    package mutating func string(_ s: String, lengthBytes: Int) {
        let utf8 = s.utf8
        switch lengthBytes {
        case 1: u8(UInt8(truncatingIfNeeded: utf8.count))
        case 2: u16(UInt16(truncatingIfNeeded: utf8.count))
        default: u32(UInt32(truncatingIfNeeded: utf8.count))
        }
        self.utf8(utf8)
    }

    /// A string's UTF-8 bytes, copied from its storage in one step.
    private mutating func utf8(_ utf8: String.UTF8View) {
        let source = utf8.span
        bytes.append(addingCapacity: source.count) { out in
            for i in source.indices { out.append(source[i]) }
        }
    }

    /// Overwrites the eight bytes at `index` (written earlier, e.g. a length known only at the end).
    package mutating func patchU64(_ v: UInt64, at index: Int) {
        for i in 0..<8 { bytes[index + i] = UInt8(truncatingIfNeeded: v >> UInt64(56 - 8 * i)) }
    }
}
