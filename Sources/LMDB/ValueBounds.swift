import CLMDB

/// The addresses a transaction may copy keys and values from: the used part of the mapped data file.
///
/// A read transaction only ever sees pages of the map up to the last committed page; a write
/// transaction also sees its own dirty pages, which live in ordinary memory outside the map,
/// and pages it spilled to the file. Anything a damaged page points at beyond those is refused
/// with `MDB_CORRUPTED` instead of being read (which would crash the process with SIGBUS).
struct ValueBounds {
    let start: UInt
    let mappedEnd: UInt
    let usedEnd: UInt
    let isReadOnly: Bool

    init(region: MappedRegion, usedBytes: Int, isReadOnly: Bool) {
        start = region.start
        mappedEnd = region.start + region.length
        usedEnd = region.start + min(UInt(max(usedBytes, 0)), region.length)
        self.isReadOnly = isReadOnly
    }

    /// Whether `count` bytes at `address` may be read.
    func permits(_ address: UInt, _ count: Int) -> Bool {
        guard address >= start && address < mappedEnd else { return !isReadOnly }
        return address < usedEnd && UInt(count) <= usedEnd - address
    }

    /// A copy of the bytes `v` points at, after checking they lie where this transaction may read.
    static func copy(_ v: MDB_val, within bounds: ValueBounds?, what: @autoclosure () -> String) throws -> [UInt8] {
        guard v.mv_size > 0, let base = v.mv_data else { return [] }
        if let bounds, !bounds.permits(UInt(bitPattern: base), v.mv_size) {
            throw LMDBError(
                code: MDB_CORRUPTED, operation: "reading \(what())",
                message: "it claims \(v.mv_size) bytes outside the used pages of the data file, which is damaged")
        }
        return [UInt8](UnsafeRawBufferPointer(start: base, count: v.mv_size))
    }
}
