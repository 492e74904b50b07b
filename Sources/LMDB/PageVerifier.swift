#if canImport(Glibc)
    import Glibc
#endif

/// What `Environment.verifyPages()` found.
package struct PageReport: Sendable, Equatable {
    /// How many pages of the snapshot were read and checked.
    package let pagesChecked: Int
    /// One line per damaged page or pointer; empty when the structure is sound.
    package let problems: [String]
    package var isSound: Bool { problems.isEmpty }
}

/// Checks the B-tree structure of one snapshot by reading the data file itself, never through LMDB.
///
/// LMDB trusts every page header, node offset, size and flag it reads: a damaged page can make it
/// dereference garbage and crash the process. This walk checks, before LMDB is asked to read the
/// trees, that every page reachable from the snapshot's meta page is what its parent says it is, and
/// that every node, key, value and overflow run lies inside its page or the file's used pages.
/// It follows the on-disk format of LMDB 0.9 on a 64-bit little-endian machine.
struct PageVerifier {
    // Page header: pgno (8), pad (2), flags (2), lower (2), upper (2) — or overflow page count (4).
    static let headerSize = 16
    static let nodeHeaderSize = 8
    static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04, meta: UInt16 = 0x08
    static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02
    static let dupSort: UInt16 = 0x04
    static let invalidPage = UInt64.max
    static let metaMagic: UInt32 = 0xBEEF_C0DE
    static let maxDepth = 32 // LMDB's cursor stack depth
    static let dbRecordSize = 48

    let fd: Int32
    let pageSize: Int
    private(set) var lastPage: UInt64 = 0
    private var visited = Set<UInt64>()
    private(set) var problems: [String] = []
    private(set) var pagesChecked = 0
    /// The named databases whose entries the walk also collects, from every leaf page that checks out.
    var collecting: Set<String> = []
    /// What it collected: per database, each entry's key and value.
    private(set) var collected: [String: [(key: [UInt8], value: [UInt8])]] = [:]

    init(fd: Int32, pageSize: Int) {
        self.fd = fd
        self.pageSize = pageSize
    }

    /// Verifies the snapshot whose meta page carries `transactionID` (the newest one if none does).
    mutating func verify(transactionID: UInt64) -> PageReport {
        guard let meta0 = readPage(0), let meta1 = readPage(1) else {
            note("the data file is shorter than its two meta pages")
            return report
        }
        let metas = [meta0, meta1].filter { Self.u32($0, 16) == Self.metaMagic }
        guard !metas.isEmpty else {
            note("neither meta page carries LMDB's magic number")
            return report
        }
        let meta = metas.first { Self.u64($0, 144) == transactionID } ?? metas.max { Self.u64($0, 144) < Self.u64($1, 144) }!
        lastPage = Self.u64(meta, 136)
        var info = stat()
        if fstat(fd, &info) == 0, UInt64(info.st_size) < (lastPage &+ 1) &* UInt64(pageSize) {
            note("the data file is \(info.st_size) bytes, but its pages in use end at \((lastPage &+ 1) &* UInt64(pageSize)) bytes")
            return report
        }
        verifyTree(named: "the free-page list", record: Array(meta[40..<88]), isMain: false, collectAs: nil)
        verifyTree(named: "the main database", record: Array(meta[88..<136]), isMain: true, collectAs: nil)
        return report
    }

    private var report: PageReport { PageReport(pagesChecked: pagesChecked, problems: problems) }

    private mutating func note(_ problem: String) {
        if problems.count < 100 { problems.append(problem) }
    }

    /// `record` is an `MDB_db`: pad (4), flags (2), depth (2), branch/leaf/overflow pages and entries (8 each), root (8).
    private mutating func verifyTree(named name: String, record: [UInt8], isMain: Bool, collectAs: String?) {
        // Sorted duplicates (MDB_DUPSORT) nest trees and pages inside nodes; this layer never opens such a
        // database, and this walk does not follow their layout, so it leaves them to LMDB.
        guard Self.u16(record, 4) & Self.dupSort == 0 else { return }
        let depth = Int(Self.u16(record, 6))
        let root = Self.u64(record, 40)
        if depth == 0 {
            if root != Self.invalidPage { note("\(name): depth 0 but a root page \(root)") }
            return
        }
        guard depth <= Self.maxDepth else {
            note("\(name): a depth of \(depth), beyond LMDB's limit of \(Self.maxDepth)")
            return
        }
        walk(root, level: depth, tree: name, isMain: isMain, collectAs: collectAs)
    }

    private mutating func walk(_ pgno: UInt64, level: Int, tree: String, isMain: Bool, collectAs: String?) {
        guard pgno >= 2, pgno <= lastPage else {
            note("\(tree): a pointer to page \(pgno), outside the pages in use (2…\(lastPage))")
            return
        }
        guard visited.insert(pgno).inserted else {
            note("\(tree): page \(pgno) is reached twice")
            return
        }
        guard let page = readPage(pgno) else {
            note("\(tree): page \(pgno) cannot be read")
            return
        }
        pagesChecked += 1
        let flags = Self.u16(page, 10)
        let lower = Int(Self.u16(page, 12))
        let upper = Int(Self.u16(page, 14))
        guard Self.u64(page, 0) == pgno else {
            note("\(tree): page \(pgno) says it is page \(Self.u64(page, 0))")
            return
        }
        let expected = level == 1 ? Self.leaf : Self.branch
        guard flags == expected else {
            note("\(tree): page \(pgno) has flags 0x\(String(flags, radix: 16)), expected a \(level == 1 ? "leaf" : "branch") page")
            return
        }
        guard lower >= Self.headerSize, lower % 2 == 0, lower <= upper, upper <= pageSize else {
            note("\(tree): page \(pgno) has free-space bounds \(lower)…\(upper) that do not fit a page of \(pageSize) bytes")
            return
        }
        let count = (lower - Self.headerSize) / 2
        if level > 1 && count == 0 {
            note("\(tree): branch page \(pgno) has no children")
            return
        }
        for index in 0..<count {
            let offset = Int(Self.u16(page, Self.headerSize + 2 * index))
            guard offset >= upper, offset + Self.nodeHeaderSize <= pageSize else {
                note("\(tree): node \(index) of page \(pgno) is at offset \(offset), outside the page's nodes")
                return
            }
            let lo = UInt64(Self.u16(page, offset))
            let hi = UInt64(Self.u16(page, offset + 2))
            let nodeFlags = Self.u16(page, offset + 4)
            let keySize = Int(Self.u16(page, offset + 6))
            let dataStart = offset + Self.nodeHeaderSize + keySize
            guard dataStart <= pageSize else {
                note("\(tree): the key of node \(index) of page \(pgno) runs past the page")
                return
            }
            if level > 1 {
                walk(lo | hi << 16 | UInt64(nodeFlags) << 32, level: level - 1, tree: tree, isMain: isMain, collectAs: collectAs)
                continue
            }
            let dataSize = Int(lo | hi << 16)
            let allowed = Self.bigData | (isMain ? Self.subData : 0)
            guard nodeFlags & ~allowed == 0 else {
                note("\(tree): node \(index) of page \(pgno) has flags 0x\(String(nodeFlags, radix: 16)), which this database cannot hold")
                continue
            }
            if nodeFlags & Self.bigData != 0 {
                guard dataStart + 8 <= pageSize else {
                    note("\(tree): node \(index) of page \(pgno) runs past the page")
                    continue
                }
                let first = Self.u64(page, dataStart)
                if verifyOverflow(first, dataSize: dataSize, tree: tree), let collectAs,
                    let value = readBytes(at: first, skipping: Self.headerSize, count: dataSize)
                {
                    collected[collectAs, default: []].append((Array(page[(offset + Self.nodeHeaderSize)..<dataStart]), value))
                }
                continue
            }
            guard dataStart + dataSize <= pageSize else {
                note("\(tree): the value of node \(index) of page \(pgno) (\(dataSize) bytes) runs past the page")
                continue
            }
            if let collectAs {
                collected[collectAs, default: []].append(
                    (Array(page[(offset + Self.nodeHeaderSize)..<dataStart]), Array(page[dataStart..<(dataStart + dataSize)])))
            }
            if nodeFlags & Self.subData != 0 {
                let name = String(decoding: page[(offset + Self.nodeHeaderSize)..<dataStart], as: UTF8.self)
                guard dataSize == Self.dbRecordSize else {
                    note("database \(name): a record of \(dataSize) bytes, not \(Self.dbRecordSize)")
                    continue
                }
                verifyTree(
                    named: "database \(name)", record: Array(page[dataStart..<(dataStart + dataSize)]), isMain: false,
                    collectAs: collecting.contains(name) ? name : nil)
            }
        }
    }

    /// Whether the overflow run at `pgno` holds a value of `dataSize` bytes inside the pages in use.
    @discardableResult
    private mutating func verifyOverflow(_ pgno: UInt64, dataSize: Int, tree: String) -> Bool {
        guard pgno >= 2, pgno <= lastPage else {
            note("\(tree): a value on page \(pgno), outside the pages in use")
            return false
        }
        guard let page = readPage(pgno) else {
            note("\(tree): overflow page \(pgno) cannot be read")
            return false
        }
        pagesChecked += 1
        let count = UInt64(Self.u32(page, 12))
        guard Self.u64(page, 0) == pgno, Self.u16(page, 10) == Self.overflow else {
            note("\(tree): page \(pgno) should hold a large value but is not an overflow page")
            return false
        }
        guard count >= 1, pgno + count - 1 <= lastPage, UInt64(dataSize) <= count * UInt64(pageSize) - UInt64(Self.headerSize) else {
            note("\(tree): the large value on page \(pgno) (\(dataSize) bytes in \(count) pages) does not fit the pages in use")
            return false
        }
        for p in pgno..<(pgno + count) where !visited.insert(p).inserted {
            note("\(tree): page \(p) is reached twice")
            return false
        }
        return true
    }

    private func readPage(_ pgno: UInt64) -> [UInt8]? { readBytes(at: pgno, skipping: 0, count: pageSize) }

    /// `count` bytes of the file from `skipping` bytes into page `pgno`, or nil when the file ends first.
    private func readBytes(at pgno: UInt64, skipping: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + done, count - done, off_t(pgno) * off_t(pageSize) + off_t(skipping + done))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }

    static func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) } }
    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
}

extension Environment {
    /// Checks the structure of every page of the current snapshot by reading the file directly
    /// (see `PageVerifier`), so a damaged store is reported instead of crashing LMDB. Run it
    /// before walking a store that may be damaged; it reads every page in use once.
    package func verifyPages() throws -> PageReport {
        try read { txn in
            guard let fd = C.envFileDescriptor(handle) else {
                throw LMDBError(code: invalidArgumentCode, operation: "verifying the pages of \(path)", message: "the data file's descriptor is not available")
            }
            var verifier = PageVerifier(fd: fd, pageSize: pageSize)
            return verifier.verify(transactionID: C.txnID(txn.handle))
        }
    }
}
