/// Where the structure of an LMDB data file lives (page headers, node pointers, node headers), so a
/// test can flip the bits LMDB trusts most rather than bytes of values. LMDB 0.9, 64-bit little-endian.
enum DataFilePages {
    static let pageSize = 4096

    /// Offsets of every structural byte of the branch, leaf and overflow pages after the two meta pages.
    static func structuralOffsets(_ file: [UInt8]) -> [Int] {
        var out: [Int] = []
        for page in 2..<(file.count / pageSize) {
            let base = page * pageSize
            let flags = Int(file[base + 10]) | Int(file[base + 11]) << 8
            if flags & 0x04 != 0 {
                out.append(contentsOf: base..<(base + 16))
                continue
            }
            guard flags & 0x03 != 0 else { continue } // a free page: its bytes are not read
            out.append(contentsOf: base..<(base + 16))
            let lower = Int(file[base + 12]) | Int(file[base + 13]) << 8
            guard lower >= 16, lower <= pageSize else { continue }
            for slot in stride(from: base + 16, to: base + lower, by: 2) {
                out.append(contentsOf: slot..<(slot + 2))
                let node = Int(file[slot]) | Int(file[slot + 1]) << 8
                if node + 8 <= pageSize { out.append(contentsOf: (base + node)..<(base + node + 8)) }
            }
        }
        return out
    }

    /// Offsets of every byte of the pages after the two meta pages.
    static func dataPageOffsets(_ file: [UInt8]) -> Range<Int> { (2 * pageSize)..<file.count }
}
