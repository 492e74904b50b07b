import Concord

/// `sync-tool --version`: the tool's version, and the formats it reads and writes.
///
/// ```swift
/// print(SyncToolVersion.text)   // "sync-tool 0.2.0" and the store and bundle formats
/// ```
public enum SyncToolVersion {
    /// The version of this build of `sync-tool` (and of Concord it is built with). The one place it is set.
    public static let version = "0.2.0"

    /// The lines `--version` prints.
    static var text: String {
        """
        sync-tool \(version)
        store format \(Store.formatVersion) (writes \(Store.formatVersion); opens 1–\(Store.formatVersion), upgrading older ones in place)
        bundle format \(SyncBundle.formatVersion) (writes \(SyncBundle.formatVersion); imports 1–\(SyncBundle.formatVersion))
        """
    }

    /// The same, as one JSON object.
    static var json: String {
        ValueText.object([
            ("version", ValueText.json(version)),
            ("store_format", String(Store.formatVersion)),
            ("store_formats_read", "[" + (1...Store.formatVersion).map(String.init).joined(separator: ",") + "]"),
            ("bundle_format", String(SyncBundle.formatVersion)),
            ("bundle_formats_read", "[" + (1...SyncBundle.formatVersion).map(String.init).joined(separator: ",") + "]")
        ])
    }
}
