/// A statement parameter, sent to the server in binary form beside the SQL text (never spliced into it).
///
/// <!-- assume: let connection = try PostgresConnection(ConnectionString("postgresql://alice@localhost/hub")), key = "theme" -->
/// ```swift
/// try connection.execute("SELECT value FROM t WHERE key = $1 AND seq > $2", [.text(key), .int8(42)])
/// ```
package enum PostgresValue: Sendable, Hashable {
    case text(String)
    case bytea([UInt8])
    case int8(Int64)
    case bool(Bool)
    /// `text[]`: a one-dimensional array without NULLs.
    case textArray([String])
    /// `bytea[]`: a one-dimensional array whose elements may be NULL.
    case byteaArray([[UInt8]?])
    /// SQL NULL (sent as untyped: the server infers the type from the statement).
    case null

    /// The type's OID (pg_type), or 0 to let the server infer it.
    var oid: UInt32 {
        switch self {
        case .text: 25
        case .bytea: 17
        case .int8: 20
        case .bool: 16
        case .textArray: 1009
        case .byteaArray: 1001
        case .null: 0
        }
    }

    /// The value in PostgreSQL's binary wire format (nil for NULL).
    var binary: [UInt8]? {
        switch self {
        case .text(let s): Array(s.utf8)
        case .bytea(let b): b
        case .int8(let v): Self.bigEndian(UInt64(bitPattern: v))
        case .bool(let v): [v ? 1 : 0]
        case .textArray(let items): Self.array(elementOID: 25, items.map { Array($0.utf8) })
        case .byteaArray(let items): Self.array(elementOID: 17, items)
        case .null: nil
        }
    }

    /// The binary array format: ndim, has-nulls, element type, then per dimension size and lower
    /// bound, then each element as a 4-byte length (-1 for NULL) and its bytes.
    private static func array(elementOID: UInt32, _ items: [[UInt8]?]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(20 + items.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        let hasNull = items.contains { $0 == nil }
        append32(items.isEmpty ? 0 : 1, &out)
        append32(hasNull ? 1 : 0, &out)
        append32(elementOID, &out)
        if !items.isEmpty {
            append32(UInt32(items.count), &out)
            append32(1, &out)
        }
        for item in items {
            if let item {
                append32(UInt32(item.count), &out)
                out.append(contentsOf: item)
            } else {
                append32(UInt32(bitPattern: -1), &out)
            }
        }
        return out
    }

    private static func append32(_ v: UInt32, _ out: inout [UInt8]) {
        out.append(contentsOf: [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)])
    }

    static func bigEndian(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) } }
}
