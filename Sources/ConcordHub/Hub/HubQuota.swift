/// A limit on what an account may hold on the hub: at most a number (of keys, of bytes), or none.
///
/// <!-- assume: let url = "postgresql://postgres@localhost/settings" -->
/// ```swift
/// try HubAdmin(url).setQuota("alice", maxKeys: .atMost(10_000), maxBytes: .unlimited)
/// ```
public enum HubLimit: Sendable, Hashable, CustomStringConvertible {
    /// No limit.
    case unlimited
    /// At most this many (0 or more).
    case atMost(Int64)

    /// The limit as the hub stores it (NULL for none).
    var column: PostgresValue { if case .atMost(let n) = self { .int8(n) } else { .null } }

    /// The limit a stored column holds (negative or NULL: none).
    init(column: Int64?) { self = column.map { $0 >= 0 ? .atMost($0) : .unlimited } ?? .unlimited }

    /// Whether `used` is within the limit.
    public func allows(_ used: Int64) -> Bool { if case .atMost(let n) = self { used <= n } else { true } }

    public var description: String { if case .atMost(let n) = self { String(n) } else { "unlimited" } }
}

/// An account's use of the hub against its limits: its live keys (rows holding a value) and its
/// bytes (each row's suite, key and value, and each device row's id and scope).
///
/// <!-- assume: let url = "postgresql://postgres@localhost/settings" -->
/// ```swift
/// for a in try HubAdmin(url).stats().perAccount { print(a.name, a.usage) }
/// ```
public struct HubUsage: Sendable, Hashable, CustomStringConvertible {
    /// Live keys: rows that hold a value (tombstones are not keys, though their names count as bytes).
    public var keys: Int64
    /// The most live keys the account may hold.
    public var maxKeys: HubLimit
    /// Bytes of the account's names and values.
    public var bytes: Int64
    /// The most bytes the account may hold.
    public var maxBytes: HubLimit

    /// A use and its limits.
    public init(keys: Int64, maxKeys: HubLimit, bytes: Int64, maxBytes: HubLimit) {
        (self.keys, self.maxKeys, self.bytes, self.maxBytes) = (keys, maxKeys, bytes, maxBytes)
    }

    /// Whether the use is within both limits.
    public var isWithinLimits: Bool { maxKeys.allows(keys) && maxBytes.allows(bytes) }

    public var description: String { "\(keys) of \(maxKeys) keys, \(bytes) of \(maxBytes) bytes" }

    /// The use a refused statement would have reached, from the `DETAIL` the hub's quota trigger sends
    /// (`keys=… max_keys=… bytes=… max_bytes=…`, -1 for no limit).
    init?(quotaDetail detail: String) {
        var fields: [String: Int64] = [:]
        for pair in detail.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int64(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let keys = fields["keys"], let bytes = fields["bytes"] else { return nil }
        self.init(keys: keys, maxKeys: HubLimit(column: fields["max_keys"]), bytes: bytes, maxBytes: HubLimit(column: fields["max_bytes"]))
    }
}
