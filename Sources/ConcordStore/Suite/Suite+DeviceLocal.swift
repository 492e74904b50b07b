/// Settings that stay on this device: keys declared device-local are stored, read, observed and
/// backed up here like any other, but their records never leave this replica — no sync, bundle,
/// `serve` session, relay, live sync or hub push carries them, and they never count as changes a
/// peer has yet to receive. The declaration itself syncs (a record of the reserved suite), so every
/// replica knows the key is local; each keeps its own value.
///
/// A replica that receives a record of a key it holds as device-local (from a peer that had not
/// seen the declaration yet, or an older bundle) ignores it: the declarations it holds once the
/// batch's own declarations are merged decide, so a batch carrying both is judged the same way
/// everywhere.
///
/// ```swift
/// try suite.setDeviceLocal(true, forKey: "windowFrame")
/// try suite.setDeviceLocal(true, forKeysWithPrefix: "paths.")
/// try suite.isDeviceLocal("paths.downloads")   // true
/// ```
extension Suite {
    /// Declares `key` device-local (its values never leave this replica) or synced again (`false`).
    ///
    /// ```swift
    /// try suite.setDeviceLocal(true, forKey: "pairingToken")
    /// ```
    ///
    /// A key made device-local after it synced keeps the value each replica holds; later writes stay
    /// where they are made. A key made synced again goes out at the next sync (each replica's record,
    /// the newest winning), and syncs from then on. A key's own declaration overrides its prefix's.
    ///
    /// - Parameters:
    ///   - isDeviceLocal: `true` to keep the key on this device, `false` to sync it.
    ///   - key: The key (1–256 bytes of UTF-8).
    /// - Throws: ``ConcordError`` `.invalidKey`, or a storage error; nothing is declared then.
    public func setDeviceLocal(_ isDeviceLocal: Bool, forKey key: String) throws {
        try core.write { w in try w.declareDeviceLocal(isDeviceLocal, suite: name, key: key, isPrefix: false) }
    }

    /// Declares every key of the suite that starts with `prefix` device-local, or synced (`false`).
    /// A key's own declaration, then the longest matching prefix, decide.
    ///
    /// ```swift
    /// try suite.setDeviceLocal(true, forKeysWithPrefix: "window.")
    /// try suite.setDeviceLocal(false, forKey: "window.theme")   // this one still syncs
    /// ```
    public func setDeviceLocal(_ isDeviceLocal: Bool, forKeysWithPrefix prefix: String) throws {
        try core.write { w in try w.declareDeviceLocal(isDeviceLocal, suite: name, key: prefix, isPrefix: true) }
    }

    /// Whether `key` stays on this device (its own declaration, else its longest declared prefix's).
    ///
    /// ```swift
    /// if try suite.isDeviceLocal("windowFrame") { print("not synced") }
    /// ```
    public func isDeviceLocal(_ key: String) throws -> Bool {
        try Names.validateKey(key, inSuite: name)
        return try core.snapshot { s in try s.isDeviceLocal(suite: name, key: key) }
    }
}
