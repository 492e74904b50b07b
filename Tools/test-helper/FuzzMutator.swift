import SplitMix

extension SeededRandom {
    /// A number in `0..<bound` (`bound` > 0), the fuzz targets' way of choosing.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// Damages valid inputs the ways real damage and hostile senders do: flipped bits, boundary bytes,
/// cut, repeated, inserted and spliced ranges, and lengths or counts claiming far more than is there.
enum FuzzMutator {
    static func mutate(_ input: [UInt8], other: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = input
        for _ in 0...random.below(4) {
            let at = bytes.isEmpty ? 0 : random.below(bytes.count)
            switch random.below(8) {
            case 0 where !bytes.isEmpty:
                bytes[at] ^= 1 << UInt8(random.below(8))
            case 1 where !bytes.isEmpty:
                bytes[at] = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x22, 0x5c, 0x5b, 0x7b][random.below(9)]
            case 2:
                bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(8)))
            case 3:
                bytes = Array(bytes.prefix(at))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, at + 1 + random.below(16))
                let piece = bytes[at..<end]
                for _ in 0..<(1 + random.below(64)) { bytes.insert(contentsOf: piece, at: at) }
            case 5:
                bytes.insert(contentsOf: (0..<(1 + random.below(8))).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            case 6:
                // A varint claiming an enormous length or count.
                bytes.insert(contentsOf: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], at: at)
            default:
                let from = other.isEmpty ? 0 : random.below(other.count)
                bytes.insert(contentsOf: other[from..<min(other.count, from + random.below(32))], at: at)
            }
        }
        return bytes
    }
}
