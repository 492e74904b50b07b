/// Which keys stay on this device: the device-local declarations of a replica as one lookup table.
///
/// A declaration is a record of the reserved suite, so it syncs like any other (every replica learns
/// which keys are local) while the values it covers never leave the replica that holds them. Keys:
/// `scope:SUITE:KEY` and `scope-prefix:SUITE:PREFIX`, each a last-writer-wins string, `device` or
/// `synced`. A key's own declaration decides, else its longest declared prefix's, else it syncs —
/// so `synced` on one key takes it out of a device-local prefix.
///
/// ```swift
/// let local = try store.read { try $0.deviceLocalKeys() }
/// if local.isDeviceLocal(suite: "ui", key: "window.frame") { print("stays here") }
/// ```
package struct DeviceLocalKeys: Sendable, Equatable {
    /// Per suite: the keys declared, each `true` for device-local, `false` for synced.
    private var keys: [String: [String: Bool]] = [:]
    /// Per suite: the prefixes declared, longest first.
    private var prefixes: [String: [Declared]] = [:]

    /// A prefix's declaration.
    private struct Declared: Sendable, Equatable {
        let prefix: String
        let isLocal: Bool
    }

    static let keyPrefix = "scope:"
    static let prefixPrefix = "scope-prefix:"
    static let device = "device"
    static let synced = "synced"

    /// The reserved key of a declaration for `key` (or, with `isPrefix`, for keys starting with it) of `suite`.
    package static func reservedKey(suite: String, key: String, isPrefix: Bool) -> String {
        (isPrefix ? prefixPrefix : keyPrefix) + suite + ":" + key
    }

    /// Whether a key of the reserved suite is a device-local declaration (of either kind).
    package static func isDeclaration(_ reservedKey: String) -> Bool {
        reservedKey.hasPrefix(keyPrefix) || reservedKey.hasPrefix(prefixPrefix)
    }

    /// True when nothing is declared: every key syncs.
    package var isEmpty: Bool { keys.isEmpty && prefixes.isEmpty }

    /// The suites that have declarations.
    package var suites: Set<String> { Set(keys.keys).union(prefixes.keys) }

    /// Whether `key` of `suite` stays on this device. Keys of the reserved suite never do.
    package func isDeviceLocal(suite: String, key: String) -> Bool {
        if let declared = keys[suite]?[key] { return declared }
        return prefixes[suite]?.first { key.hasPrefix($0.prefix) }?.isLocal ?? false
    }

    /// The declarations, for listing: suite, key or prefix, and whether it is device-local; by suite, keys first.
    package var declarations: [(suite: String, key: String, isPrefix: Bool, isDeviceLocal: Bool)] {
        var out: [(String, String, Bool, Bool)] = []
        for suite in suites.sorted() {
            for (key, local) in (keys[suite] ?? [:]).sorted(by: { $0.key < $1.key }) { out.append((suite, key, false, local)) }
            for p in (prefixes[suite] ?? []).sorted(by: { $0.prefix < $1.prefix }) { out.append((suite, p.prefix, true, p.isLocal)) }
        }
        return out
    }

    /// Takes the declaration `record` holds under `reservedKey` (replacing what was there for it): a
    /// live `device` or `synced` string declares, anything else (a tombstone, another value) declares nothing.
    package mutating func apply(reservedKey: String, record: Record?) {
        let isPrefix: Bool
        let rest: Substring
        if reservedKey.hasPrefix(Self.keyPrefix) {
            (isPrefix, rest) = (false, reservedKey.dropFirst(Self.keyPrefix.count))
        } else if reservedKey.hasPrefix(Self.prefixPrefix) {
            (isPrefix, rest) = (true, reservedKey.dropFirst(Self.prefixPrefix.count))
        } else {
            return
        }
        guard let colon = rest.firstIndex(of: ":") else { return }
        let suite = String(rest[..<colon])
        let key = String(rest[rest.index(after: colon)...])
        var isLocal: Bool?
        if case .string(let scope)? = try? record?.value() { isLocal = scope == Self.device ? true : scope == Self.synced ? false : nil }
        if isPrefix {
            var list = prefixes[suite] ?? []
            list.removeAll { $0.prefix == key }
            if let isLocal { list.append(Declared(prefix: key, isLocal: isLocal)) }
            list.sort { $0.prefix.utf8.count != $1.prefix.utf8.count ? $0.prefix.utf8.count > $1.prefix.utf8.count : $0.prefix < $1.prefix }
            prefixes[suite] = list.isEmpty ? nil : list
        } else {
            var table = keys[suite] ?? [:]
            table[key] = isLocal
            keys[suite] = table.isEmpty ? nil : table
        }
    }
}

extension ReplicaRows {
    /// Every device-local declaration this replica holds (two cursor seeks when there are none).
    package func deviceLocalKeys() throws -> DeviceLocalKeys {
        var table = DeviceLocalKeys()
        for prefix in [DeviceLocalKeys.keyPrefix, DeviceLocalKeys.prefixPrefix] {
            try scanRecords(suite: ReservedSuite.name, keyPrefix: prefix) { key, row in
                table.apply(reservedKey: key, record: row.record)
                return true
            }
        }
        return table
    }

    /// Whether `key` of `suite` stays on this device (see `DeviceLocalKeys`).
    package func isDeviceLocal(suite: String, key: String) throws -> Bool {
        guard suite != ReservedSuite.name else { return false }
        return try deviceLocalKeys().isDeviceLocal(suite: suite, key: key)
    }
}

extension ReplicaTransaction {
    /// Declares `key` of `suite` (or, with `isPrefix`, every key starting with it) device-local or
    /// synced, as a record of the reserved suite; returns false when that declaration was in place.
    /// Keys that stop being device-local here have their records journaled again (`leavingDevice`).
    @discardableResult
    package func declareDeviceLocal(_ isLocal: Bool, suite: String, key: String, isPrefix: Bool) throws -> Bool {
        try Names.validateSuite(suite)
        guard suite != ReservedSuite.name else { throw ConcordError.reservedSuite(suite) }
        if !isPrefix || !key.isEmpty { try Names.validateNewKey(key) }
        if try sealing(suite: suite) != nil { throw ConcordError.encryptedDeviceLocal(suite: suite, key: key) }
        let reservedKey = DeviceLocalKeys.reservedKey(suite: suite, key: key, isPrefix: isPrefix)
        let scope = isLocal ? DeviceLocalKeys.device : DeviceLocalKeys.synced
        let existing = try existingRow(suite: ReservedSuite.name, key: reservedKey)
        let current = try existing.flatMap { try record(of: $0, suite: ReservedSuite.name, key: reservedKey).value() }
        guard current != .string(scope) else { return false }
        try changingDeviceLocalKeys {
            _ = try writePlain(suite: ReservedSuite.name, key: reservedKey, valueBytes: try ValueCodec.encode(.string(scope)), existing: existing)
        }
        return true
    }

    /// Runs `body`, which may change device-local declarations, then journals again the records of
    /// every key that was device-local before and syncs after: their entries predate the cursors of
    /// the peers they were kept from, so without a new entry the current record would never go out.
    /// Journaled again unchanged (same version), it merges on every replica by its version as usual,
    /// so replicas converge on the key again.
    /// A record `body` stored itself (a merge's) is new in the journal already and is left as it is.
    package func changingDeviceLocalKeys<R>(_ body: () throws -> R) throws -> R {
        let before = try deviceLocalKeys()
        let seqBefore = lastSeq
        let result = try body()
        guard !before.isEmpty else { return result }
        let after = try deviceLocalKeys()
        guard after != before else { return result }
        var leaving: [(suite: String, key: String, row: StoredRow)] = []
        for suite in before.suites.sorted() {
            try scanRecords(suite: suite) { _, key, row in
                if row.seq <= seqBefore, before.isDeviceLocal(suite: suite, key: key), !after.isDeviceLocal(suite: suite, key: key) {
                    leaving.append((suite, key, row))
                }
                return true
            }
        }
        rejournaledCount += leaving.count
        for (suite, key, row) in leaving {
            try put(
                recordKey(suite: suite, key: key), suite: suite, key: key, row.record, source: .process(token: ReplicaCore.processToken),
                replacingExpiry: row.record.expiresAtMilliseconds)
        }
        return result
    }
}
