import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The benchmark's own temporary directory (mode 0700, as Concord requires); removed at the end.
final class ScratchDirectory {
    let root: String
    private var counter = 0

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/concord-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BenchError("cannot create a scratch directory under \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
        }
        root = String(cString: made)
    }

    /// A new, empty directory (mode 0700) named after `label`.
    func makeDirectory(_ label: String) throws -> String {
        counter += 1
        let path = root + "/\(label)-\(counter)"
        guard mkdir(path, 0o700) == 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    func removeAll() { try? FileManager.default.removeItem(atPath: root) }
}
