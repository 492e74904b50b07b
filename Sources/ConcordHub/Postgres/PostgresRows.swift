/// The rows a statement returned, copied out of libpq (binary format), with typed accessors that
/// fail with a clear error when a column is not what the caller expects.
///
/// <!-- assume: let connection = try PostgresConnection(ConnectionString("postgresql://alice@localhost/hub")), name = "alice" -->
/// ```swift
/// let rows = try connection.execute("SELECT seq, key FROM records WHERE account = $1", [.text(name)])
/// for row in 0..<rows.count { print(try rows.int64(row, 0), try rows.text(row, 1)) }
/// ```
package struct PostgresRows: Sendable {
    package let columns: [String]
    /// Each row's fields, in binary format; nil is SQL NULL.
    package let rows: [[[UInt8]?]]
    /// Rows the statement affected (INSERT, UPDATE, DELETE), or the rows returned.
    package let affected: Int

    package var count: Int { rows.count }

    package func isNull(_ row: Int, _ column: Int) -> Bool { rows[row][column] == nil }

    package func bytes(_ row: Int, _ column: Int) throws(PostgresError) -> [UInt8] {
        guard let field = rows[row][column] else { throw unexpected(row, column, "NULL") }
        return field
    }

    package func optionalBytes(_ row: Int, _ column: Int) -> [UInt8]? { rows[row][column] }

    package func text(_ row: Int, _ column: Int) throws(PostgresError) -> String {
        guard let s = String(validating: try bytes(row, column), as: UTF8.self) else { throw unexpected(row, column, "text that is not UTF-8") }
        return s
    }

    /// An integer column of 2, 4 or 8 bytes (smallint, integer, bigint).
    package func int64(_ row: Int, _ column: Int) throws(PostgresError) -> Int64 {
        let b = try bytes(row, column)
        guard [2, 4, 8].contains(b.count) else { throw unexpected(row, column, "\(b.count) bytes for an integer") }
        var v: UInt64 = b[0] & 0x80 != 0 ? UInt64.max : 0
        for byte in b { v = v << 8 | UInt64(byte) }
        return Int64(bitPattern: v)
    }

    package func bool(_ row: Int, _ column: Int) throws(PostgresError) -> Bool {
        let b = try bytes(row, column)
        guard b.count == 1 else { throw unexpected(row, column, "\(b.count) bytes for a boolean") }
        return b[0] != 0
    }

    private func unexpected(_ row: Int, _ column: Int, _ what: String) -> PostgresError {
        let name = column < columns.count ? columns[column] : "#\(column)"
        return PostgresError(.protocolViolation, message: "column \(name) of row \(row) holds \(what)", operation: "read a result")
    }
}
