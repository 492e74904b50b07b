import Foundation

/// Checks that `--timeline`'s file can be written before a run spends its seconds.
enum TimelineFile {
    /// Why `path` cannot be written (its directory missing or not writable, or it is a directory), or `nil`.
    static func unwritable(_ path: String) -> String? {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return "cannot write the timeline to \(path): the directory \(directory) does not exist"
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "cannot write the timeline to \(path): it is a directory"
        }
        guard FileManager.default.isWritableFile(atPath: directory) else { return "cannot write the timeline to \(path): \(directory) is not writable" }
        return nil
    }
}
