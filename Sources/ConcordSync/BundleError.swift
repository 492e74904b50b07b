import ConcordStore

/// Why a bundle was refused. Import checks the whole bundle before applying anything, so a
/// refused bundle changed nothing.
///
/// <!-- assume: let path = "/tmp/phone.bundle" -->
/// ```swift
/// do { try BundleExchange.importBundle(at: path, into: store) }
/// catch let error as BundleError where error.kind == .newerVersion { print("upgrade:", error) }
/// ```
public struct BundleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kinds of refusal, each a reason a bundle cannot be imported.
    public enum Kind: String, Sendable, Equatable {
        /// The file cannot be read (missing, a directory, no permission).
        case unreadable
        /// The bundle cannot be written (its directory is missing or not writable, the disk is full).
        case unwritable
        /// Not a Concord bundle (wrong magic bytes).
        case wrongMagic
        /// Written by a newer format than this Concord reads.
        case newerVersion
        /// The file ends before the bundle does.
        case truncated
        /// Larger than the limits allow (bytes, entries or a value).
        case oversized
        /// The checksum does not match: the bytes were damaged.
        case checksumMismatch
        /// The bytes are intact but describe something impossible (bad counts, names, seqs, records).
        case malformed
        /// The bundle cannot go into this replica (it was exported by this very replica).
        case wrongReplica
    }

    /// Which kind of refusal this is.
    public let kind: Kind
    /// What was wrong and what to do about it.
    public let message: String
    /// The bundle's path, when it came from a file.
    public var path: String?

    /// A refusal of `kind`, explained by `message`, of the bundle at `path` when it came from a file.
    public init(_ kind: Kind, _ message: String, path: String? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
    }

    public var description: String {
        (path.map { "bundle \($0): " } ?? "bundle: ") + message + (kind == .unwritable ? " (nothing was exported)" : " (nothing was imported)")
    }
}

/// The most a bundle may hold; anything larger is refused before it is applied.
///
/// ```swift
/// var limits = BundleLimits()
/// limits.maxBytes = 64 << 20
/// ```
public struct BundleLimits: Sendable, Equatable {
    /// Largest bundle file, in bytes (default 1 GiB).
    public var maxBytes = 1 << 30
    /// Most entries (default 10,000,000).
    public var maxEntries = 10_000_000
    /// Largest encoded value of one entry (default 4 MiB, the store's default limit).
    public var maxValueBytes = 4 << 20

    /// The default limits.
    public init() {}
}
