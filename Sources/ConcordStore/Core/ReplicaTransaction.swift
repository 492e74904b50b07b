import Foundation
import LMDB

/// The write core: every change to a replica — a local set, delete or reset, an atomic update or
/// increment, a merged remote record, a migration — goes through one of these, inside one LMDB
/// write transaction.
///
/// It keeps each record, its live journal entry, the clock and the sequence number in step, and
/// checks what it is given (the key, the value's size and encodability, the suite's schema). Every
/// change appends a journal entry and nothing else to the journal: the entry it supersedes stays
/// until `JournalCompaction` removes it in bulk, and readers pass over it (its row no longer points
/// at it). A local write follows the key's merge policy (its declaration, else the policy
/// its record reads by, else last-writer-wins); plain last-writer-wins keys take a short path of
/// their own (`ReplicaTransaction+Policies.swift` has the policies').
package final class ReplicaTransaction: ReplicaRows {
    package let txn: Transaction
    package let layout: StoreLayout
    package let path: String
    /// The replica being written.
    package let replica: ReplicaID
    /// The wall clock (milliseconds since 1970) read when this transaction began.
    package let wallClockMilliseconds: UInt64
    let options: Store.Options
    /// `options.maxClockDrift` in milliseconds, converted once.
    private let maxDriftMilliseconds: UInt64
    /// The schemas this process registered for the replica's suites.
    package let schemas: RegisteredSchemas
    /// The keys of encrypted suites this process holds.
    package let keyring: SuiteKeyring
    /// How the suite this transaction last wrote by name is sealed (nil: in the clear).
    private var sealingOf: (suite: String, sealing: SuiteSealing?)?
    /// The reserved suite's declarations known to hold at this transaction's seq: those the
    /// replica core published when the transaction began at their seq, and those it looked up since.
    private(set) var known: KnownDeclarations
    private let localSource: ChangeSource
    private var state: ReplicaState
    private let initialState: ReplicaState
    /// How many records this transaction changed.
    package private(set) var changeCount = 0
    /// How many records it journaled again unchanged, because their key stopped being device-local.
    package var rejournaledCount = 0
    /// Whether it moved a cursor on a peer (the sync layer's): observers of acknowledgements are woken.
    package var cursorsChanged = false
    /// What the reserved suite declares for the suite this transaction last wrote (most write one suite).
    var declarations: KnownDeclarations.Policies?
    /// The suite this transaction last found writable (its stored schema version against this process's).
    var writableSuite: String?
    /// The buffers each change is built in, reused from change to change (`takeBuffers`).
    private var buffers = ChangeBuffers()
    /// Whether this transaction dropped a journal entry (the last one may have carried the state).
    private var droppedJournalEntry = false
    /// True while a migration runs: it may write the reserved suite and a suite not yet at this code's schema.
    var isMigrating = false

    /// A transaction of `txn`, which starts from `carried`, what the transaction before it in `txn`
    /// knew of the declarations (nil for the first).
    init(txn: Transaction, core: ReplicaCore, nowMilliseconds: UInt64, carrying carried: KnownDeclarations?) throws {
        self.txn = txn
        self.layout = core.layout
        self.path = core.path
        self.replica = core.replicaID
        self.options = core.options
        self.maxDriftMilliseconds = core.options.maxClockDriftMilliseconds
        self.schemas = core.schemas
        self.keyring = core.keyring
        self.localSource = .process(token: ReplicaCore.processToken)
        self.wallClockMilliseconds = nowMilliseconds
        let state = try ReplicaState.load(txn, core.layout)
        self.state = state
        self.initialState = state
        if let carried, carried.seq == state.seq {
            known = carried
        } else {
            known = core.declarationCache.known(atSeq: state.seq, keyringGeneration: core.keyring.generation)
        }
    }

    /// The last journal seq this transaction has written (or found).
    package var lastSeq: UInt64 { state.seq }

    // MARK: - Local writes

    /// Stores `value` under `key` of `suite` with a fresh version that wins over what this replica
    /// held, as the key's policy does it: a counter takes it as its new value (taking back the
    /// increments it had seen), a max or min key as a proposal, a set as its new members.
    ///
    /// - Returns: The version written, or nil when nothing was (a max proposal below the current value).
    ///
    /// With `expiry` (milliseconds since 1970, after now), the value reads as absent from then on, on
    /// every replica; only a last-writer-wins key's value may expire.
    @discardableResult
    package func set(_ value: Value, suite: String, key: String, expiry: UInt64? = nil) throws -> Version? {
        try checkWritable(suite: suite)
        try Names.validateNewKey(key, inSuite: suite)
        if let expiry { try checkExpiry(expiry, key: key) }
        let sealing = try sealing(suite: suite)
        if expiry != nil, sealing != nil {
            throw ConcordError.unsupportedValue(
                key: key, reason: "a value of an encrypted suite cannot expire (its expiry is sealed, so replicas without the key could not honour it)")
        }
        let (bytes, existing): ([UInt8], ExistingRow?)
        if sealing == nil, try resolvedPolicy(suite: suite, key: key, existing: nil) == .lww {
            // A key new here costs one search: the row goes in, unless the search finds one held (then written below).
            switch try insertNew(value, suite: suite, key: key, expiry: expiry) {
            case .inserted(let version): return version
            case .held(let row, let valueBytes): (bytes, existing) = (valueBytes, row)
            }
        } else {
            bytes = try encodeChecked(value, key: key)
            existing = try existingRow(suite: suite, key: key)
        }
        let policy = try resolvedPolicy(suite: suite, key: key, existing: existing)
        if expiry != nil {
            guard policy == .lww, existing?.isPolicy != true else {
                throw ConcordError.policyMismatch(
                    suite: suite, key: key, policy: policy == .lww ? try record(of: existing!, suite: suite, key: key).policy : policy,
                    reason: "only a last-writer-wins key's value can expire (a counter's, set's, max's or min's parts merge on without one)")
            }
        }
        if policy == .lww, existing?.isPolicy != true {
            return try writePlain(suite: suite, key: key, valueBytes: bytes, existing: existing, expiry: expiry)
        }
        return try writePolicy(suite: suite, key: key, existing: existing, policy: policy) { state, version in
            try self.applySet(value, bytes: bytes, to: &state, at: version, policy: policy, suite: suite, key: key)
        }
    }

    /// Deletes `key` of `suite` (a tombstone, or for a policy record a removal that takes back what
    /// it had seen), so the delete syncs; returns its version, or nil when the key held no value (an
    /// expired value is none).
    @discardableResult
    package func remove(suite: String, key: String) throws -> Version? {
        try checkWritable(suite: suite)
        try Names.validateKey(key, inSuite: suite)
        guard let existing = try existingRow(suite: suite, key: key), !existing.readsAsAbsent(at: wallClockMilliseconds) else { return nil }
        guard existing.isPolicy else { return try writePlain(suite: suite, key: key, valueBytes: nil, existing: existing) }
        guard try !record(of: existing, suite: suite, key: key).isTombstone else { return nil }
        let policy = try resolvedPolicy(suite: suite, key: key, existing: existing)
        return try writePolicy(suite: suite, key: key, existing: existing, policy: policy) { state, version in
            state.replaceWhole(with: nil, at: version)
            return true
        }
    }

    /// Removes every key of `suite` that holds a value; returns how many.
    package func resetSuite(_ suite: String) throws -> Int {
        try checkWritable(suite: suite)
        var live: [String] = []
        try scanNamedRecords(suite: suite, keyring: keyring) { key, row in
            if !row.record.readsAsAbsent(at: wallClockMilliseconds) { live.append(key) }
            return true
        }
        for key in live { try remove(suite: suite, key: key) }
        return live.count
    }

    /// The stored value of `key` as a read finds it now (nil for none, a tombstone or an expired value), decoded.
    package func value(suite: String, key: String) throws -> Value? {
        guard let record = try namedRecord(suite: suite, key: key)?.record else { return nil }
        let now = wallClockMilliseconds
        return try rowReader(suite: suite, key: key).value(of: record, now: { now })
    }

    /// The record stored for the key named `key` of `suite` and its seq, opened (`ReplicaRows.namedRecord`).
    package func namedRecord(suite: String, key: String) throws -> StoredRecord? {
        try namedRecord(suite: suite, key: key, keyring: keyring)
    }

    /// How `suite` is sealed (nil: in the clear), as this transaction reads its declaration and the
    /// process's keys; looked up in LMDB only when not `known`.
    ///
    /// - Throws: ``ConcordError`` `.suiteKeyMissing` or `.suiteKeyMismatch`: an encrypted suite whose
    ///   key this process does not hold is not written.
    package func sealing(suite: String) throws -> SuiteSealing? {
        if let last = sealingOf, last.suite == suite { return last.sealing }
        let generation = keyring.generation
        let found: SuiteSealing?
        if let held = known.sealing(suite: suite, keyringGeneration: generation) {
            found = held
        } else {
            found = try SealDeclaration.sealing(txn, layout, suite: suite, keyring: keyring, path: path)
            known.remember(found, suite: suite, keyringGeneration: generation)
        }
        sealingOf = (suite, found)
        return found
    }

    /// What the reserved suite declares for `suite`'s merge policies; looked up in LMDB only when not `known`.
    func policies(suite: String) throws -> KnownDeclarations.Policies {
        if let held = known.policies(suite: suite) { return held }
        let found = KnownDeclarations.Policies(suite: suite, hasKeys: try hasKeyDeclarations(suite: suite), prefixes: try prefixPolicies(suite: suite))
        known.remember(found)
        return found
    }

    /// Forgets every declaration looked up before: this transaction is writing the reserved suite.
    private func forgetDeclarations() {
        (declarations, writableSuite, sealingOf) = (nil, nil, nil)
        known.forgetAll()
    }

    /// Forgets the suite's sealing looked up before (its declaration changed in this transaction).
    func forgetSealing() { sealingOf = nil }

    /// Refuses a local write to the reserved suite, or to a suite this replica holds at a newer
    /// schema version than the one this process registered for it.
    func checkWritable(suite: String) throws {
        guard !isMigrating else { return }
        if suite == ReservedSuite.name { throw ConcordError.reservedSuite(suite) }
        guard writableSuite != suite else { return }
        if let registered = schemas.entry(suite: suite), let stored = try schemaVersion(suite: suite), stored > registered.version {
            throw ConcordError.newerSchema(suite: suite, stored: stored, supported: registered.version)
        }
        writableSuite = suite
    }

    /// Refuses an expiry that is not after now, or past the greatest time a version may carry.
    func checkExpiry(_ expiry: UInt64, key: String) throws {
        func text(_ ms: UInt64) -> String { JSONValue.formatDate(Date(timeIntervalSince1970: Double(ms) / 1000)) }
        let when = text(expiry)
        guard expiry > wallClockMilliseconds else {
            throw ConcordError.unsupportedValue(
                key: key, reason: "its expiry (\(when)) is not after now (\(text(wallClockMilliseconds))): a value must expire in the future")
        }
        guard expiry <= HybridClock.maxMilliseconds else {
            throw ConcordError.unsupportedValue(
                key: key, reason: "its expiry (\(expiry) ms since 1970) is past the end of the year 9999, the latest time any replica accepts")
        }
    }

    func encodeChecked(_ value: Value, key: String) throws -> [UInt8] {
        let bytes = try ValueCodec.encode(value, key: key)
        guard bytes.count <= options.maxValueBytes else {
            throw ConcordError.valueTooLarge(key: key, bytes: bytes.count, limit: options.maxValueBytes)
        }
        return bytes
    }

    /// The fresh version of a local write of `key` whose record has `existingHLC`, and the clock after
    /// it; refuses the write when no version within `HybridClock.maxHLC` is left for it.
    func nextVersion(suite: String, key: String, existingHLC: UInt64?) throws -> (Version, clock: UInt64) {
        guard
            let (hlc, clock) = HybridClock.localWrite(
                nowMilliseconds: wallClockMilliseconds, clock: state.clock, existing: existingHLC,
                maxDriftMilliseconds: maxDriftMilliseconds)
        else { throw ConcordError.versionExhausted(suite: suite, key: key, reason: exhaustion(existingHLC: existingHLC)) }
        return (Version(hlc: hlc, replica: replica), clock)
    }

    /// Why no version is left for a write (see `nextVersion`).
    private func exhaustion(existingHLC: UInt64?) -> String {
        let bound = "the greatest version any replica accepts (the end of the year 9999)"
        if wallClockMilliseconds > HybridClock.maxMilliseconds {
            return "the wall clock reads \(wallClockMilliseconds) ms since 1970, past \(bound): set the system clock right"
        }
        if let existingHLC, existingHLC >= HybridClock.maxHLC {
            return "its stored version (hlc \(hex(existingHLC))) is at or past \(bound), so no later version exists; it came from a damaged or forged record"
        }
        return "the replica's clock (hlc \(hex(state.clock))) is at \(bound)"
    }

    private func hex(_ hlc: UInt64) -> String { "0x" + String(hlc, radix: 16) }

    /// Writes a plain record (a value, expiring at `expiry` when given, or a tombstone for nil) with a fresh version.
    func writePlain(suite: String, key: String, valueBytes: [UInt8]?, existing: ExistingRow?, expiry: UInt64? = nil) throws -> Version {
        let (version, clock) = try nextVersion(suite: suite, key: key, existingHLC: existing?.hlc)
        state.clock = clock
        try putLocal(
            suite: suite, key: key, Record(version: version, valueBytes: valueBytes, expiryMilliseconds: expiry),
            replacingExpiry: try replacedExpiry(existing, suite: suite, key: key))
        return version
    }

    /// Writes a policy record with a fresh version, made by `body` from the record held (a plain
    /// record is lifted into a state whose base it is). When the policy changes, the value the key
    /// had is carried over as the new base first, so no value is lost. Nothing is written when the
    /// state did not change.
    func writePolicy(
        suite: String, key: String, existing: ExistingRow?, policy: MergePolicy,
        _ body: (inout PolicyState, Version) throws -> Bool
    ) throws -> Version? {
        let current = try existing.map { try record(of: $0, suite: suite, key: key) }
        var policyState = current.map { $0.state ?? PolicyState(lifting: $0) } ?? PolicyState(policy: policy)
        let (version, clock) = try nextVersion(suite: suite, key: key, existingHLC: existing?.hlc)
        var changed = policyState.policy != policy
        do {
            if policyState.policy != policy {
                let before = try policyState.value(at: wallClockMilliseconds)
                if try policyState.value(as: policy, at: wallClockMilliseconds) != before {
                    policyState.replaceWhole(with: try before.map { try ValueCodec.encode($0, key: key) }, at: version)
                }
            }
        } catch let error as ValueDecodingError {
            throw rowReader(suite: suite, key: key).undecodable(error)
        }
        policyState.policy = policy
        if try body(&policyState, version) { changed = true }
        guard changed else { return nil }
        let written = Record(version: version, state: policyState)
        let size = written.encoded.count - Record.headerSize
        guard size <= options.maxValueBytes else { throw ConcordError.valueTooLarge(key: key, bytes: size, limit: options.maxValueBytes) }
        state.clock = clock
        try putLocal(suite: suite, key: key, written, replacingExpiry: current?.expiresAtMilliseconds)
        return version
    }

    // MARK: - Merges and migrations

    /// Stores a remote `record` that the merge decided on (the remote record, or the combination of
    /// it with the local one), journaled as coming from `peer`. `replacing` is the local record it
    /// replaces with its journal seq (read while deciding), or nil when the key is new here. The record
    /// passed the sync layer's gate (`RecordGate`) before the transaction began.
    package func storeMerged(_ record: Record, suite: String, key: String, from peer: ReplicaID, replacing: StoredRecord?) throws {
        try Names.validateNewKey(key, inSuite: suite)
        var b = takeBuffers()
        defer { buffers = b }
        b.key.reset()
        StoreLayout.recordKey(suite: suite, key: key, into: &b.key)
        try put(
            b.key.bytes, suite: suite, key: key, record,
            source: .sync(peer: peer), replacingExpiry: replacing?.record.expiresAtMilliseconds, buffers: &b)
    }

    /// Stores `record` as this replica's own change made by a migration (a record moved to a renamed
    /// key, or one whose version is derived from the record it replaces, so that every replica
    /// migrating the same record writes the same one).
    package func storeMigrated(_ record: Record, suite: String, key: String) throws {
        try Names.validateKey(key, inSuite: suite)
        if try sealing(suite: suite) != nil { throw ConcordError.encryptedMigration(suite: suite) }
        guard record.version.hlc <= HybridClock.maxHLC else {
            throw ConcordError.versionExhausted(
                suite: suite, key: key, reason: "a migration would version it past the greatest version any replica accepts (the end of the year 9999)")
        }
        let existing = try existingRow(suite: suite, key: key)
        try put(
            recordKey(suite: suite, key: key), suite: suite, key: key, record, source: localSource,
            replacingExpiry: try replacedExpiry(existing, suite: suite, key: key))
    }

    /// Runs `body` as a migration: it may write the reserved suite and a suite whose stored schema
    /// is not yet this process's.
    package func migrating<R>(_ body: () throws -> R) rethrows -> R {
        let was = isMigrating
        isMigrating = true
        defer { isMigrating = was }
        return try body()
    }

    /// Advances the clock after seeing a remote `hlc`, never beyond `maxDriftMilliseconds` ahead of
    /// the wall clock; returns whether the remote version was beyond that bound (clock skew).
    package func observeRemote(hlc remote: UInt64, maxDriftMilliseconds: UInt64) -> Bool {
        let (clock, skewed) = HybridClock.merge(
            remote: remote, clock: state.clock, nowMilliseconds: wallClockMilliseconds,
            maxDriftMilliseconds: maxDriftMilliseconds)
        state.clock = clock
        return skewed
    }

    /// Forgets a tombstone, or a plain value that has expired: its row, its live journal entry and its
    /// expiry (tombstone collection decides when that is safe). The key's superseded entries stay
    /// until `removeSupersededJournalEntries` (which collection calls in the same transaction).
    package func dropTombstone(suite: String, key: String) throws {
        guard let row = try storedRecord(suite: suite, key: key), row.record.isPlain,
            row.record.isTombstone || row.record.hasExpired(at: wallClockMilliseconds)
        else { return }
        if suite == ReservedSuite.name { forgetDeclarations() }
        let recordKey = recordKey(suite: suite, key: key)
        try txn.delete(layout.records, recordKey)
        try txn.delete(layout.journal, StoreLayout.seqKey(row.seq))
        if let expiry = row.record.expiryMilliseconds { try txn.delete(layout.expiries, StoreLayout.expiryKey(expiry, recordKey: recordKey)) }
        droppedJournalEntry = true
    }

    /// Deletes every superseded journal entry, the last one included (`finish` then saves the clock
    /// and seq), in this transaction: tombstone collection leaves no entry of a key it dropped, which
    /// a recovery could take for a row lost.
    package func removeSupersededJournalEntries() throws {
        droppedJournalEntry = true
        var after: UInt64 = 0
        while let next = try JournalCompaction.step(self, after: after, keepingLast: false) { after = next }
    }

    // MARK: - Rows and journal

    /// A row read before a local write: its seq and header, and its bytes for when the record is needed whole.
    struct ExistingRow {
        let seq: UInt64
        let hlc: UInt64
        let isTombstone: Bool
        let isPolicy: Bool
        /// A plain value's expiry (a policy record's base may hold one too: `replaced` reads it).
        let expiry: UInt64?
        let bytes: [UInt8]

        /// Whether a plain row reads as absent at `now` (a policy row: never judged here).
        func readsAsAbsent(at now: UInt64) -> Bool { isTombstone || now >= (expiry ?? .max) }
    }

    /// The expiry the row a write replaces is indexed under (nil for none, or no row).
    func replacedExpiry(_ row: ExistingRow?, suite: String, key: String) throws -> UInt64? {
        guard let row else { return nil }
        guard row.isPolicy else { return row.expiry }
        return try record(of: row, suite: suite, key: key).expiresAtMilliseconds
    }

    /// The record key of `suite`/`key`.
    func recordKey(suite: String, key: String) -> [UInt8] { StoreLayout.recordKey(suite: suite, key: key) }

    /// The row of the key named `key` of `suite`, its header checked, without decoding its value; in
    /// an encrypted suite, the name's record opened and merged with every replica's policy
    /// contribution (`SealedNameRecord`).
    func existingRow(suite: String, key: String) throws -> ExistingRow? {
        if let sealing = try sealing(suite: suite) {
            guard let stored = try SealedNameRecord.read(txn, layout, name: key, sealing: sealing, path: path) else { return nil }
            return try existingRow(StoredRow(seq: stored.seq, record: stored.record).encoded, suite: suite, key: key)
        }
        guard let bytes = try txn.get(layout.records, recordKey(suite: suite, key: key)) else { return nil }
        return try existingRow(bytes, suite: suite, key: key)
    }

    /// Writes a tombstone over the row in the clear of `key` of `suite`, which holds `record` (a suite
    /// being encrypted: its value is sealed again under the name's row key).
    func dropClearValue(suite: String, key: String, record: Record) throws {
        let (version, clock) = try nextVersion(suite: suite, key: key, existingHLC: record.version.hlc)
        state.clock = clock
        try put(
            recordKey(suite: suite, key: key), suite: suite, key: key, Record(version: version, valueBytes: nil), source: localSource,
            replacingExpiry: nil)
    }

    /// Stores a local write's `record` of the key named `key` (`put`): in an encrypted suite sealed,
    /// so neither the row nor its journal entry holds the name or the value — a plain record under
    /// the name's row key, a policy state as this replica's contribution (under the row key followed
    /// by this replica's id), which only this replica writes and every key holder joins with the others'.
    private func putLocal(suite: String, key: String, _ record: Record, replacingExpiry: UInt64?) throws {
        guard let sealing = try sealing(suite: suite) else {
            return try put(recordKey(suite: suite, key: key), suite: suite, key: key, record, source: localSource, replacingExpiry: replacingExpiry)
        }
        let nameKey = sealing.rowKey(for: key)
        let rowKey = record.isPlain ? nameKey : SuiteSealing.contributionKey(rowKey: nameKey, origin: record.version.replica)
        try put(
            StoreLayout.recordKey(suite: suite, key: rowKey), suite: suite, key: rowKey, sealing.seal(record, name: key, rowKey: rowKey),
            source: localSource, replacingExpiry: nil)
    }

    /// A row's seq and header, checked, from its bytes.
    private func existingRow(_ bytes: [UInt8], suite: String, key: String) throws -> ExistingRow {
        var reader = ByteReader(bytes)
        do {
            let (seq, header) = try StoredRow.readHeader(&reader)
            return ExistingRow(
                seq: seq, hlc: header.hlc, isTombstone: header.isTombstone, isPolicy: header.isPolicy, expiry: header.expiryMilliseconds, bytes: bytes)
        } catch {
            throw rowReader(suite: suite, key: key).undecodable(error)
        }
    }

    func record(of row: ExistingRow, suite: String, key: String) throws -> Record {
        try rowReader(suite: suite, key: key).row(row.bytes).record
    }

    /// Stores `record` under `recordKey` as a new change and appends its journal entry; keeps the
    /// expiry index in step with the record it replaces, which expired at `replacingExpiry` (if ever).
    func put(_ recordKey: [UInt8], suite: String, key: String, _ record: Record, source: ChangeSource, replacingExpiry: UInt64?) throws {
        var b = takeBuffers()
        defer { buffers = b }
        try put(recordKey, suite: suite, key: key, record, source: source, replacingExpiry: replacingExpiry, buffers: &b)
    }

    private func put(
        _ recordKey: [UInt8], suite: String, key: String, _ record: Record, source: ChangeSource, replacingExpiry: UInt64?,
        buffers b: inout ChangeBuffers
    ) throws {
        if suite == ReservedSuite.name { forgetDeclarations() }
        if let old = replacingExpiry, old != record.expiresAtMilliseconds {
            try txn.delete(layout.expiries, StoreLayout.expiryKey(old, recordKey: recordKey))
        }
        if let expiry = record.expiresAtMilliseconds, expiry != replacingExpiry {
            try txn.put(layout.expiries, StoreLayout.expiryKey(expiry, recordKey: recordKey), [])
        }
        state.seq += 1
        b.row.reset()
        StoredRow.encode(seq: state.seq, record, into: &b.row)
        try txn.put(layout.records, recordKey, b.row.bytes)
        try appendEntry(suite: suite, key: key, source: source, buffers: &b)
    }

    /// The reused buffers, moved out of the transaction for one change (so building it takes no
    /// exclusive access to the transaction's properties per step); the change puts them back.
    private func takeBuffers() -> ChangeBuffers {
        var taken = ChangeBuffers.none
        swap(&taken, &buffers)
        return taken
    }

    /// What `insertNew` did: stored the value with this version, or found a row (and wrote nothing).
    private enum Insertion {
        case inserted(Version)
        case held(ExistingRow, valueBytes: [UInt8])
    }

    /// Stores a local write of `value` (a last-writer-wins value) under a key this replica does not
    /// hold, in one search of the records: the row and its journal entry are built in the reused
    /// buffers, the value encoded straight into the row. When a row is held there, writes nothing
    /// and returns that row and the value's encoding.
    private func insertNew(_ value: Value, suite: String, key: String, expiry: UInt64?) throws -> Insertion {
        var b = takeBuffers()
        defer { buffers = b }
        b.row.reset()
        b.row.u64(state.seq + 1)
        let hlcAt = Record.encodePlainHeader(hlc: 0, replica: replica, expiry: expiry, into: &b.row)
        let valueAt = b.row.count
        try ValueCodec.encode(value, into: &b.row, depth: 0, key: key)
        let size = b.row.count - valueAt
        guard size <= options.maxValueBytes else { throw ConcordError.valueTooLarge(key: key, bytes: size, limit: options.maxValueBytes) }
        let (version, clock) = try nextVersion(suite: suite, key: key, existingHLC: nil)
        b.row.patchU64(version.hlc, at: hlcAt)
        b.key.reset()
        StoreLayout.recordKey(suite: suite, key: key, into: &b.key)
        if let held = try txn.insert(layout.records, b.key.bytes, b.row.bytes) {
            return .held(try existingRow(held, suite: suite, key: key), valueBytes: Array(b.row.bytes[valueAt...]))
        }
        if suite == ReservedSuite.name { forgetDeclarations() }
        state.seq += 1
        state.clock = clock
        if let expiry { try txn.put(layout.expiries, StoreLayout.expiryKey(expiry, recordKey: b.key.bytes), []) }
        try appendEntry(suite: suite, key: key, source: localSource, buffers: &b)
        return .inserted(version)
    }

    /// Appends the journal entry of the change whose row was just built in `b.row` and stored under
    /// `state.seq` (seqs only grow), carrying the clock: its record is copied from the row.
    private func appendEntry(suite: String, key: String, source: ChangeSource, buffers b: inout ChangeBuffers) throws {
        b.entry.reset()
        JournalEntry.encodeHeader(suite: suite, key: key, source: source, clock: state.clock, into: &b.entry)
        b.entry.append(b.row.bytes[8...])
        try txn.append(layout.journal, key: state.seq, b.entry.bytes)
        changeCount += 1
    }

    /// Saves the clock and seq when they moved, or when an entry that may have carried them was dropped
    /// (called by the core before it commits); usually the journal's last entry already carries them.
    func finish() throws {
        if state != initialState || droppedJournalEntry { try state.save(txn, layout) }
        known.advance(to: state.seq)
    }
}
