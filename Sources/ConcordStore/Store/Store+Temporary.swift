import Foundation

extension Store {
    /// A real store in a fresh private directory (mode 0700, under the system's temporary directory)
    /// that removes itself once nothing uses it any more: when the last `Store`, `Suite`, observation
    /// or wrapper of it is released, the store is closed and then its directory removed. For tests and
    /// previews: it behaves exactly like any other store (other processes can open `directory` meanwhile).
    ///
    /// ```swift
    /// let store = try Store.temporary()
    /// let suite = try store.suite("preview")
    /// try suite.set("dark", forKey: "theme")
    /// // … when `store` and `suite` go, so does the directory.
    /// ```
    ///
    /// - Parameter options: The options to open it with. The default is the default options.
    /// - Returns: The new, empty store.
    /// - Throws: ``ConcordError`` `.io` when the directory cannot be created.
    public static func temporary(options: Options = Options()) throws -> Store {
        var base = NSTemporaryDirectory()
        if !base.hasSuffix("/") { base += "/" }
        let path = base + "concord-" + UUID().uuidString.lowercased()
        do {
            // Not intermediate: mkdir fails rather than reuse a directory that exists.
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConcordError.io(path: path, reason: "cannot create a temporary store directory: \(error.localizedDescription)")
        }
        let store: Store
        do { store = try Store(path: path, options: options) } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        // The environment outlives every Store and Suite of the directory in this process; only once it
        // is closed can the files go.
        store.core.env.whenClosed { try? FileManager.default.removeItem(atPath: path) }
        return store
    }
}
