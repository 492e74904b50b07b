import Concord

extension HubSchema {
    /// Version 6: sealed records of encrypted suites, held as they come (the hub never holds a key).
    ///
    /// - `records.sealed`: NULL for a record in the clear; `value` for a sealed value, `tombstone` for a
    ///   sealed deletion (which holds its key's sealed name, so it has bytes too). A sealed row's `key`
    ///   is the row key (32 hex digits of a keyed hash of the suite's and the key's names), its `value`
    ///   the nonce, ciphertext and tag, its `version` the record's version in the clear: the push merges
    ///   it by version alone, and a pull hands back the same bytes.
    /// - A sealed row is never a policy record and never expires (`sealed_row` check).
    /// - A sealed tombstone is a tombstone to `hub gc`, `hub stats` and the key limit (`isTombstone`),
    ///   so the trigger counting an account's keys is replaced.
    ///
    /// A client of schema 5 is refused (`newerSchema`): it would read a sealed row as a value in the clear.
    static let sealedMigration: [String] = [
        "ALTER TABLE concord_hub.records ADD COLUMN sealed text CHECK (sealed IN ('value', 'tombstone'))",
        """
        ALTER TABLE concord_hub.records ADD CONSTRAINT sealed_row
          CHECK (sealed IS NULL OR (value IS NOT NULL AND NOT policy AND expires_ms IS NULL))
        """,
        recordUseFunction
    ]

    /// Whether the row `alias` names is a tombstone: no value, or a sealed deletion (a SQL condition).
    static func isTombstone(_ alias: String) -> String {
        "(\(alias).value IS NULL OR \(alias).sealed IS NOT DISTINCT FROM 'tombstone')"
    }

    /// What the `sealed` column holds for `record`: NULL (nil) in the clear.
    static func sealedColumn(_ record: Record) -> String? {
        guard record.isSealed else { return nil }
        return record.isTombstone ? "tombstone" : "value"
    }
}
