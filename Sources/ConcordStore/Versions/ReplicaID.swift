/// The identity of one replica (one store directory): 16 random bytes stamped at creation.
///
/// ```swift
/// print(store.replicaID)   // "3f2a…" (32 hex digits)
/// ```
public struct ReplicaID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 16 bytes, compared unsigned and lexicographically.
    public let bytes: [UInt8]

    /// The replica id made of `bytes`, or nil unless there are exactly 16 of them.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses 32 hexadecimal digits.
    public init?(hex: String) {
        let chars = Array(hex.utf8)
        guard chars.count == 32 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for i in stride(from: 0, to: 32, by: 2) {
            guard let hi = Self.nibble(chars[i]), let lo = Self.nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        bytes = out
    }

    /// A fresh random identity.
    public static func random() -> ReplicaID {
        var g = SystemRandomNumberGenerator()
        return ReplicaID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) })!
    }

    /// The id of no replica (16 zero bytes), below every real one.
    public static let zero = ReplicaID(bytes: [UInt8](repeating: 0, count: 16))!

    public static func < (a: ReplicaID, b: ReplicaID) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

    public var description: String { bytes.map { String($0, radix: 16).leftPadded(2) }.joined() }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension String {
    /// The string with `pad` in front, up to `width` characters.
    package func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
