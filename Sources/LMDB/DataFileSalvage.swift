#if canImport(Glibc)
    import Glibc
#endif

/// What can still be read from a damaged data file: the entries of some named databases, taken from
/// every page that checks out, and the damage met on the way.
///
/// ```swift
/// let salvage = try DataFileSalvage.read(directory: "/var/lib/app/settings", databases: ["records"])
/// print(salvage.entries["records"]?.count ?? 0, "entries;", salvage.problems.count, "damaged places")
/// ```
package struct DataFileSalvage: Sendable {
    /// Per database, each readable entry's key and value, in the order of the tree.
    package let entries: [String: [(key: [UInt8], value: [UInt8])]]
    /// One line per damaged page or pointer that was skipped.
    package let problems: [String]
    /// How many pages were read.
    package let pagesRead: Int

    /// Reads `directory/data.mdb` directly, never through LMDB (whose assertions would stop the
    /// process at the first damaged page): walks the newest snapshot's trees as `check` does, skips
    /// every page that does not check out with everything below it, and collects the entries of
    /// `databases` from the leaf pages that do.
    ///
    /// - Throws: `LMDBError` when the file cannot be opened or no meta page is readable.
    package static func read(directory: String, databases: Set<String>) throws -> DataFileSalvage {
        let path = directory + "/data.mdb"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LMDBError(code: errno, operation: "reading \(path)", message: String(cString: strerror(errno))) }
        defer { close(fd) }
        var verifier = PageVerifier(fd: fd, pageSize: pageSize(fd))
        verifier.collecting = databases
        let report = verifier.verify(transactionID: .max) // no snapshot carries it: the newest meta page's
        return DataFileSalvage(entries: verifier.collected, problems: report.problems, pagesRead: report.pagesChecked)
    }

    /// The page size the first meta page records (LMDB keeps it in the free list's record), else the system's.
    private static func pageSize(_ fd: Int32) -> Int {
        var header = [UInt8](repeating: 0, count: 48)
        let fallback = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard pread(fd, &header, header.count, 0) == header.count, PageVerifier.u32(header, 16) == PageVerifier.metaMagic else { return fallback }
        let size = Int(PageVerifier.u32(header, 40))
        return size >= 512 && size <= 65536 && size & (size - 1) == 0 ? size : fallback
    }
}
