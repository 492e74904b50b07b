import Foundation

/// The files whose examples the tool compiles, and the module each belongs to.
enum SourceFiles {
    struct NotFound: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) is neither a folder nor a file" }
    }

    /// The Swift files and DocC articles at or under `paths`, sorted.
    static func find(in paths: [String]) throws -> [String] {
        var found: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { throw NotFound(path: path) }
            guard isDirectory.boolValue else {
                found.append(path)
                continue
            }
            let base = path.hasSuffix("/") ? String(path.dropLast()) : path
            for case let relative as String in manager.enumerator(atPath: base) ?? FileManager.DirectoryEnumerator() {
                let file = base + "/" + relative
                if file.hasSuffix(".swift") || (file.hasSuffix(".md") && file.contains(".docc/")) { found.append(file) }
            }
        }
        return found.sorted()
    }

    /// The folder under `Sources` a file is in ("Concord" for Sources/Concord/Concord.docc/GettingStarted.md).
    static func module(of path: String) -> String {
        let components = path.split(separator: "/").map(String.init)
        guard let sources = components.lastIndex(of: "Sources"), sources + 1 < components.count - 1 else { return "" }
        return components[sources + 1]
    }
}
