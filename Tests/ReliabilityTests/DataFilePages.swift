import Foundation

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

extension DataFilePages {
    /// One leaf page of a database in the newest snapshot, with its entries (a large value read from its overflow pages).
    struct LeafPage {
        let page: Int
        let entries: [(key: [UInt8], value: [UInt8])]
    }

    /// The leaf pages of the named database `name`, in key order, as the newest meta page reaches them.
    static func leafPages(_ file: [UInt8], database name: String) -> [LeafPage] {
        func u16(_ at: Int) -> Int { Int(file[at]) | Int(file[at + 1]) << 8 }
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(file[at + $1]) << (8 * $1) } }
        // A node: its flags, key, and (branch) child page or (leaf) value.
        func nodes(_ page: Int) -> [(flags: Int, key: [UInt8], child: Int, value: [UInt8])] {
            let base = page * pageSize
            let count = (u16(base + 12) - 16) / 2
            return (0..<count).map { index in
                let node = base + u16(base + 16 + 2 * index)
                let (lo, hi, flags, keySize) = (u16(node), u16(node + 2), u16(node + 4), u16(node + 6))
                let key = Array(file[(node + 8)..<(node + 8 + keySize)])
                let dataStart = node + 8 + keySize
                let size = lo | hi << 16
                let value: [UInt8]
                if u16(base + 10) & 0x01 != 0 {
                    value = []
                } else if flags & 0x01 != 0 {
                    let overflow = u64(dataStart) * pageSize + 16
                    value = Array(file[overflow..<(overflow + size)])
                } else {
                    value = Array(file[dataStart..<(dataStart + size)])
                }
                return (flags, key, lo | hi << 16 | flags << 32, value)
            }
        }
        func leaves(root: Int, depth: Int) -> [LeafPage] {
            guard depth > 1 else { return [LeafPage(page: root, entries: nodes(root).map { ($0.key, $0.value) })] }
            return nodes(root).flatMap { leaves(root: $0.child, depth: depth - 1) }
        }
        let meta = u64(144) >= u64(pageSize + 144) ? 0 : pageSize
        let main = meta + 88
        let namedDatabases = leaves(root: u64(main + 40), depth: u16(main + 6)).flatMap(\.entries)
        guard let record = namedDatabases.first(where: { $0.key == Array(name.utf8) })?.value, record.count == 48 else { return [] }
        let depth = Int(record[6]) | Int(record[7]) << 8
        let root = (0..<8).reduce(0) { $0 | Int(record[40 + $1]) << (8 * $1) }
        return depth == 0 ? [] : leaves(root: root, depth: depth)
    }

    /// The key a journal entry's bytes name (`[2][clock 8][source 17][suite length 1][suite][key length 2][key]…`).
    static func journalKey(_ entry: [UInt8]) -> String {
        let suiteLength = Int(entry[26])
        let at = 27 + suiteLength
        let keyLength = Int(entry[at]) << 8 | Int(entry[at + 1])
        return String(decoding: entry[(at + 2)..<(at + 2 + keyLength)], as: UTF8.self)
    }

    /// Marks `page` a branch page (flags 0x01): LMDB's cursor asserts `IS_LEAF` when it steps onto it.
    static func markBranch(_ page: Int, in path: String) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(page * pageSize + 10))
        try handle.write(contentsOf: Data([0x01, 0x00]))
        try handle.synchronize()
    }
}
