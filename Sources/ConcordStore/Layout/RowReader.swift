/// The one reader of a key's row in the `records` database (`[seq 8][record]`, see the architecture
/// document): a suite's reads, an observation's first value, the write core, read snapshots, scans and
/// the sync layer all decode rows here, and a row that does not decode is one error,
/// `ConcordError.undecodableRecord`, naming the suite, the key and what was wrong.
///
/// <!-- assume: let bytes: [UInt8] = given() -->
/// ```swift
/// let reader = RowReader(suite: "prefs", key: "theme", path: "/tmp/settings")
/// let row = try reader.row(bytes)
/// print(row.seq, try reader.value(of: row.record, now: { 0 }) as Any)
/// ```
package struct RowReader {
    package let suite: String
    /// The key: its name for a read by name, else the row's key as stored.
    package let key: String
    /// The replica's directory, for the error.
    package let path: String
    /// What becomes of a sealed row (an encrypted suite's).
    package let opening: Opening

    /// What a reader does with a sealed row.
    package enum Opening: Sendable {
        /// Keeps it sealed: the rows as stored, which the sync layer moves unopened.
        case asStored
        /// Opens it with the suite's sealing (a read of the key by its name), and refuses it when
        /// there is none (the process holds no key for the suite).
        case byName(SuiteSealing?)
    }

    package init(suite: String, key: String, path: String, opening: Opening = .asStored) {
        self.suite = suite
        self.key = key
        self.path = path
        self.opening = opening
    }

    /// The row's journal seq and record, tombstones and expired values included; read by name, a
    /// sealed record is opened.
    package func row(_ bytes: [UInt8]) throws(ConcordError) -> StoredRow {
        let row: StoredRow
        do { row = try StoredRow.decode(bytes) } catch { throw undecodable(error) }
        guard row.record.isSealed, case .byName(let sealing) = opening else { return row }
        guard let sealing else { throw ConcordError.suiteKeyMissing(suite: suite, path: path) }
        do {
            let (name, record) = try sealing.open(row.record, rowKey: sealing.rowKey(for: key))
            guard name == key else { throw ValueDecodingError("the sealed record holds the name of another key") }
            return StoredRow(seq: row.seq, record: record)
        } catch {
            throw undecodable(error)
        }
    }

    /// What a read finds in the row: its value (nil for a tombstone or an expired value) and, for a
    /// value that expires and has not yet, when it does. A plain value is decoded straight from the
    /// row's bytes; `now` (the wall clock, in milliseconds) is asked only of a value that expires or a
    /// policy state.
    package func read(_ bytes: [UInt8], now: () -> UInt64) throws(ConcordError) -> (value: Value?, expiry: UInt64?) {
        var reader = ByteReader(bytes)
        do {
            let header = try StoredRow.readHeader(&reader).header
            if header.isSealed { return try read(row(bytes).record, now: now) }
            if header.isTombstone { return (nil, nil) }
            if header.isPolicy { return try read(StoredRow.decode(bytes).record, now: now) }
            guard let expiry = header.expiryMilliseconds else { return (try ValueCodec.decodeRest(&reader), nil) }
            if now() >= expiry { return (nil, nil) }
            return (try ValueCodec.decodeRest(&reader), expiry)
        } catch let error as ConcordError {
            throw error
        } catch {
            throw undecodable(error)
        }
    }

    /// The value a read of `record` returns at the time `now` gives (nil for a tombstone or an expired
    /// value).
    package func value(of record: Record, now: () -> UInt64) throws(ConcordError) -> Value? {
        try read(record, now: now).value
    }

    private func read(_ record: Record, now: () -> UInt64) throws(ConcordError) -> (value: Value?, expiry: UInt64?) {
        do {
            guard let expiry = record.expiresAtMilliseconds else { return (try record.value(), nil) }
            let time = now()
            return (try record.value(at: time), time < expiry ? expiry : nil)
        } catch {
            throw undecodable(error)
        }
    }

    /// The error of this row when its bytes do not decode.
    package func undecodable(_ error: any Error) -> ConcordError {
        ConcordError.undecodableRecord(suite: suite, key: key, path: path, error)
    }
}
