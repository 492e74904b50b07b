#if canImport(Glibc)
    import Glibc
#endif

/// Where this process maps an environment's data file, found in `/proc/self/maps`.
///
/// LMDB trusts the sizes and offsets written in its pages. In a damaged file they can point past
/// the end of the file, and copying from there crashes the process (SIGBUS) instead of reporting
/// the damage. Knowing the mapping lets `ValueBounds` refuse such a read with an error.
struct MappedRegion: Sendable, Equatable {
    let start: UInt
    let length: UInt

    /// The mapping of `file` at offset 0, matched by device and inode (or by path); nil when it cannot be found.
    static func find(file: String) -> MappedRegion? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        let wantedDevice = hex(major, width: 2) + ":" + hex(minor, width: 2)
        let wantedInode = String(info.st_ino)
        for line in readMaps().split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, UInt(String(decoding: fields[2], as: UTF8.self), radix: 16) == 0 else { continue }
            let path = fields.count == 6 ? String(decoding: fields[5], as: UTF8.self).trimmingSpaces : ""
            let sameFile =
                (String(decoding: fields[3], as: UTF8.self) == wantedDevice && String(decoding: fields[4], as: UTF8.self) == wantedInode)
                || path == file
            guard sameFile else { continue }
            let range = fields[0].split(separator: UInt8(ascii: "-"))
            guard range.count == 2,
                let start = UInt(String(decoding: range[0], as: UTF8.self), radix: 16),
                let end = UInt(String(decoding: range[1], as: UTF8.self), radix: 16), end > start
            else { continue }
            return MappedRegion(start: start, length: end - start)
        }
        return nil
    }

    private static func hex(_ v: UInt64, width: Int) -> String {
        let s = String(v, radix: 16)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func readMaps() -> [UInt8] {
        let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
