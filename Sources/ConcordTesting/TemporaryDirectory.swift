import Foundation

/// A fresh private directory (mode 0700) under the system's temporary directory, for tests that need
/// paths: several replicas side by side, bundles, a store a child process opens. `Store.temporary()`
/// is simpler when one store is all a test needs.
///
/// ```swift
/// let tmp = try TemporaryDirectory()
/// defer { tmp.remove() }
/// let phone = try Store(path: tmp.path("phone")), watch = try Store(path: tmp.path("watch"))
/// ```
public struct TemporaryDirectory: Sendable {
    /// The directory's path.
    public let root: String

    /// Creates the directory, named after `label` and a random suffix.
    ///
    /// ```swift
    /// let tmp = try TemporaryDirectory("sync-tests")
    /// ```
    ///
    /// - Throws: The file system's error when it cannot be created.
    public init(_ label: String = "concord") throws {
        var base = NSTemporaryDirectory()
        if !base.hasSuffix("/") { base += "/" }
        root = base + label + "-" + UUID().uuidString.lowercased()
        // Not intermediate: creating fails rather than reuse a directory that exists.
        try FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
    }

    /// A path inside the directory (not created).
    ///
    /// <!-- assume: let tmp = try TemporaryDirectory() -->
    /// ```swift
    /// let store = try Store(path: tmp.path("replica"))
    /// ```
    public func path(_ name: String) -> String { root + "/" + name }

    /// Removes the directory and everything in it. Release the stores inside it first.
    ///
    /// <!-- assume: let tmp = try TemporaryDirectory() -->
    /// ```swift
    /// defer { tmp.remove() }
    /// ```
    public func remove() { try? FileManager.default.removeItem(atPath: root) }
}
