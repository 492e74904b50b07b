/// The one check every record from outside passes before it may touch a write transaction (see the
/// architecture document, "Trust and time"). Every merge goes through `BatchApplier`, which runs it over the
/// whole batch first, so no transport can skip it: another replica's journal read by a directory sync,
/// a bundle, a `serve` batch (either side's), a relayed batch (the receiving server checks it), a live
/// round, a hub page. The bundle decoder runs it on each entry it parses (so a bad bundle is refused
/// before a store is opened), the hub's pull on each row (so one bad row is refused and named while
/// the sound rows merge), and `DeltaReader` on what it sends (so a replica that holds a record stored
/// before these rules leaves it out instead of having every batch refused).
///
/// It holds a record to what the write core guarantees for local writes:
/// - the suite: 1–128 bytes of letters, digits, `.`, `_`, `-`, not `.` or `..` (the reserved suite
///   `_concord`, whose keys may be longer, passes: declarations and schema versions sync);
/// - the key: 1–256 bytes of UTF-8 (400 in the reserved suite), no U+0000;
/// - the value: at most the store's limit in encoded bytes (a policy record: its state), and it
///   decodes — a policy record's state and every value in it;
/// - the versions: the record's, and every one inside a policy state, at most `HybridClock.maxHLC`
///   (the end of the year 9999): a fixed bound, so every replica refuses the same records;
/// - an expiry (a plain value's, or a policy state's base's): a time like a version's, after 1970 and
///   at most the end of the year 9999, bounded the same way.
///
/// <!-- assume: let entry: RemoteEntry = given(), batch: RemoteBatch = given() -->
/// ```swift
/// let gate = RecordGate(store: phone)
/// if let refused = gate.refusal(of: entry) { print(refused) }   // app/"k" (seq 9): its version …
/// try gate.check(batch)                                        // throws ConcordError.refusedRecord
/// ```
package struct RecordGate: Sendable {
    /// The largest value a record may hold, in encoded bytes (a policy record: its whole state).
    package var maxValueBytes: Int

    package init(maxValueBytes: Int) { self.maxValueBytes = maxValueBytes }

    /// The gate of `store`: its value limit.
    package init(store: Store) { self.init(maxValueBytes: store.options.maxValueBytes) }

    /// Refuses the batch at its first record that may not be merged (nothing of it is merged then).
    package func check(_ batch: RemoteBatch) throws(ConcordError) {
        let entries = batch.entries
        var soundSuite: String?
        for i in entries.indices {
            let entry = entries[i]
            let known = entry.suite == soundSuite
            if let refused = refusal(suite: entry.suite, key: entry.key, seq: entry.seq, record: entry.record, suiteKnownSound: known) {
                throw ConcordError.refusedBatch(refused)
            }
            soundSuite = entry.suite
        }
    }

    /// Why `entry` may not be merged; nil when it may.
    package func refusal(of entry: RemoteEntry) -> ConcordError? {
        refusal(suite: entry.suite, key: entry.key, seq: entry.seq, record: entry.record)
    }

    /// Why `record`, at `suite`/`key` and `seq` in the journal it came from, may not be merged; nil when
    /// it may. `decodingValues: false` skips decoding the values, for a record read with its values
    /// decoded already (a journal entry); `suiteKnownSound` skips the suite name, passed by the record
    /// before it (batches hold long runs of one suite).
    package func refusal(
        suite: String, key: String, seq: UInt64, record: Record, decodingValues: Bool = true, suiteKnownSound: Bool = false
    ) -> ConcordError? {
        func refused(_ problem: RecordRefusal, _ reason: String) -> ConcordError {
            ConcordError.refused(suite: suite, key: key, seq: seq, problem: problem, reason: reason)
        }
        if !suiteKnownSound {
            do { try Names.validateSuite(suite) } catch { return refused(.suiteName, "\(error)") }
        }
        do { try Names.validateNewKey(key, inSuite: suite) } catch { return refused(.key, "\(error)") }
        let greatest = max(record.version.hlc, record.state?.greatestHLC ?? 0)
        guard greatest <= HybridClock.maxHLC else {
            return refused(
                .version,
                "its version (hlc 0x\(String(greatest, radix: 16))) is past the greatest any clock produces (the end of the year 9999): the record is damaged or forged"
            )
        }
        if let expiry = record.expiresAtMilliseconds, expiry == 0 || expiry > HybridClock.maxMilliseconds {
            return refused(
                .version,
                "its expiry (\(expiry) ms since 1970) is not a time any clock produces (after 1970, up to the end of the year 9999): the record is damaged or forged"
            )
        }
        if let sealed = record.sealedBytes {
            // What a replica without the key can check: where it is stored (a name's row key, or a
            // policy contribution's key ending in the replica that wrote it) and how large it is. Its
            // contents are checked where the key is (`ReplicaTransaction.checkSealed`).
            guard suite != ReservedSuite.name else { return refused(.key, "a sealed record belongs to a suite other than \(ReservedSuite.name)") }
            if let misplaced = SuiteSealing.storageRefusal(key: key, record: record) { return refused(.key, misplaced) }
            let limit = SuiteSealing.maximumSealedBytes(maxValueBytes: maxValueBytes)
            guard sealed.count <= limit else {
                return refused(.valueSize, "its sealed bytes are \(sealed.count), over the limit of \(limit) bytes")
            }
        } else if let bytes = record.valueBytes {
            guard bytes.count <= maxValueBytes else {
                return refused(.valueSize, "its value is \(bytes.count) bytes, over the limit of \(maxValueBytes) bytes")
            }
            guard decodingValues else { return nil }
            do { _ = try ValueCodec.decode(bytes) } catch { return undecodable(error, "its value", refused) }
        } else if let state = record.state {
            let size = state.encoded.count
            guard size <= maxValueBytes else {
                return refused(.valueSize, "its policy state is \(size) bytes, over the limit of \(maxValueBytes) bytes")
            }
            guard decodingValues else { return nil }
            do { try state.forEachValue { bytes throws(ValueDecodingError) in _ = try ValueCodec.decode(bytes) } } catch {
                return undecodable(error, "a value of its policy state", refused)
            }
        }
        return nil
    }

    /// The refusal of a value (`what`) that does not decode: written by a newer Concord, or damaged.
    func undecodable(
        _ error: ValueDecodingError, _ what: String, _ refused: (RecordRefusal, String) -> ConcordError
    ) -> ConcordError {
        error.writtenByNewerConcord ? refused(.writtenByNewerConcord, "\(what): \(error)") : refused(.undecodable, "\(what) does not decode: \(error)")
    }
}
