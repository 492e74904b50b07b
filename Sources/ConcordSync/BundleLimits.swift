/// The most a bundle may hold; anything larger is refused before it is applied.
///
/// ```swift
/// var limits = BundleLimits()
/// limits.maxBytes = 64 << 20
/// ```
package struct BundleLimits: Sendable, Equatable {
    /// Largest bundle file, in bytes (default 1 GiB).
    package var maxBytes = 1 << 30
    /// Most entries (default 10,000,000).
    package var maxEntries = 10_000_000
    /// Largest encoded value of one entry (default 4 MiB, the store's default limit).
    package var maxValueBytes = 4 << 20

    /// The default limits.
    package init() {}
}
