import Foundation

extension ReplicaTransaction {
    /// Declares `suite` encrypted with `key` (`SealDeclaration`) and seals its values in the clear
    /// again, in this transaction: each live value is written sealed under its name's row key with a
    /// fresh version, and its row in the clear becomes a tombstone of that version (so replicas still
    /// holding the value in the clear drop it when they sync); the journal entries that held those
    /// values are removed. This process holds the key from then on.
    ///
    /// - Returns: How many values were sealed again (0 when the suite was encrypted with `key` already).
    package func encryptSuite(_ suite: String, with key: EncryptionKey) throws -> Int {
        try checkWritable(suite: suite)
        if let declared = try SealDeclaration.keyID(txn, layout, suite: suite, path: path) {
            guard EncryptionKey.same(id: declared, as: key) else {
                throw ConcordError.suiteKeyMismatch(suite: suite, given: key, declared: declared, path: path)
            }
            keyring.add(key, suite: suite)
            return 0
        }
        for prefix in [DeviceLocalKeys.keyPrefix, DeviceLocalKeys.prefixPrefix] {
            try scanRecords(suite: ReservedSuite.name, keyPrefix: prefix + suite + ":") { reservedKey, row in
                guard case .string(DeviceLocalKeys.device)? = try? row.record.value() else { return true }
                throw ConcordError.encryptedDeviceLocal(suite: suite, key: String(reservedKey.dropFirst(prefix.count + suite.utf8.count + 1)))
            }
        }
        var clear: [(key: String, record: Record)] = []
        try scanRecords(suite: suite) { _, name, row in
            guard !row.record.isSealed, !row.record.isTombstone else { return true }
            if let state = row.record.state {
                throw ConcordError.policyMismatch(
                    suite: suite, key: name, policy: state.policy,
                    reason:
                        "its state in the clear holds what each replica contributed, which sealing again cannot take back from the replicas holding it: remove the key before encrypting the suite, and write it again after"
                )
            }
            if row.record.expiryMilliseconds != nil {
                throw ConcordError.unsupportedValue(
                    key: name, reason: "a value of an encrypted suite cannot expire: remove the key before encrypting suite \"\(suite)\"")
            }
            clear.append((name, row.record))
            return true
        }
        let reservedKey = SealDeclaration.reservedKey(suite: suite)
        _ = try writePlain(
            suite: ReservedSuite.name, key: reservedKey, valueBytes: try ValueCodec.encode(.data(Data(key.id))),
            existing: try existingRow(suite: ReservedSuite.name, key: reservedKey))
        keyring.add(key, suite: suite)
        forgetSealing()
        try hashDeclaredNames(suite: suite, sealing: SuiteSealing(suite: suite, key: key))
        SuiteEncryptionCheckpoint.reach(.declared)
        guard !clear.isEmpty else { return 0 }
        for (index, (name, record)) in clear.enumerated() {
            if index == clear.count / 2 { SuiteEncryptionCheckpoint.reach(.halfway) }
            // The tombstone in the clear first: `writePlain` then writes the sealed value (the suite is
            // declared now), both with versions above the value's.
            try dropClearValue(suite: suite, key: name, record: record)
            _ = try writePlain(suite: suite, key: name, valueBytes: record.valueBytes, existing: nil)
        }
        try removeSupersededJournalEntries()
        SuiteEncryptionCheckpoint.reach(.sealed)
        return clear.count
    }

    /// Seals every record of the encrypted `suite` again with `newKey` and declares the suite sealed
    /// with it, the keys it had before remembered, in this transaction (`Suite.rotateKey(to:)`): each
    /// record, opened with whichever key of the suite sealed it, is stored with its own version under
    /// the name's row key of `newKey` (a contribution under its writer's key, as before), and its old
    /// row and the journal entries that held it are removed. The old rows are not written over:
    /// another replica's later write under the old key still wins by its version wherever it arrives,
    /// and one that replaces nothing here cannot be lost to the rotation. Rotating to the current key
    /// seals again only the records still sealed with a previous key.
    ///
    /// - Returns: How many records were sealed again.
    package func rotateSuiteKey(_ suite: String, to newKey: EncryptionKey) throws -> Int {
        try checkWritable(suite: suite)
        guard let ids = try SealDeclaration.keyIDs(txn, layout, suite: suite, path: path) else {
            throw ConcordError(.invalidArgument, "suite \"\(suite)\" is not encrypted, so it has no key to rotate: encrypt it first", suite: suite, path: path)
        }
        guard !ids.previous.contains(where: { EncryptionKey.same(id: $0, as: newKey) }) else {
            throw ConcordError(
                .invalidArgument, "the key given (id \(newKey.idText)…) is one suite \"\(suite)\" was rotated from: rotate to a new key", suite: suite,
                path: path)
        }
        guard let old = try sealing(suite: suite) else { return 0 }
        let rotating = !EncryptionKey.same(id: ids.current, as: newKey)
        // Every sealed row, opened: the rows of one name and writer sealed with different keys merge.
        var moved: [String: (name: String, record: Record)] = [:]
        var oldRows: [String] = []
        try scanRecords(suite: suite) { _, storedKey, row in
            guard row.record.isSealed else { return true }
            if !rotating, (try? old.openStored(row.record, storedKey: storedKey)) != nil { return true }
            let opened: (name: String, record: Record)?
            do { opened = try old.openWithAnyKey(row.record, storedKey: storedKey) } catch {
                throw RowReader(suite: suite, key: storedKey, path: path).undecodable(error)
            }
            guard case (let name, let record)? = opened else { throw ConcordError.sealedWithPreviousKey(suite: suite, path: path) }
            let writer = storedKey.utf8.count == SuiteSealing.rowKeyLength ? "" : String(storedKey.dropFirst(SuiteSealing.rowKeyLength))
            let slot = name + "\u{0}" + writer
            moved[slot] = (name, moved[slot].map { RecordMerge.merge($0.record, record) } ?? record)
            oldRows.append(storedKey)
            return true
        }
        if rotating {
            let reservedKey = SealDeclaration.reservedKey(suite: suite)
            let declared = newKey.id + ids.current + ids.previous.flatMap { $0 }
            _ = try writePlain(
                suite: ReservedSuite.name, key: reservedKey, valueBytes: try ValueCodec.encode(.data(Data(declared))),
                existing: try existingRow(suite: ReservedSuite.name, key: reservedKey))
            keyring.add(newKey, suite: suite)
            forgetSealing()
        }
        SuiteEncryptionCheckpoint.reach(.declared)
        let new = SuiteSealing(suite: suite, key: newKey)
        for (index, key) in oldRows.enumerated() {
            if index == oldRows.count / 2 { SuiteEncryptionCheckpoint.reach(.halfway) }
            try forgetRow(suite: suite, key: key)
        }
        for (name, moving) in moved.values.sorted(by: { $0.name < $1.name }) {
            let rowKey = new.rowKey(for: name)
            let storedKey = moving.isPlain ? rowKey : SuiteSealing.contributionKey(rowKey: rowKey, origin: moving.version.replica)
            // Rotating to the current key: a record already sealed with it there merges with the moved one.
            var record = moving
            if let held = try storedRecord(suite: suite, key: storedKey)?.record, held.isSealed {
                let opened: Record
                do { opened = try new.openStored(held, storedKey: storedKey).record } catch {
                    throw RowReader(suite: suite, key: storedKey, path: path).undecodable(error)
                }
                record = RecordMerge.merge(opened, moving)
                guard record != opened else { continue }
            }
            try put(
                StoreLayout.recordKey(suite: suite, key: storedKey), suite: suite, key: storedKey, new.seal(record, name: name, rowKey: storedKey),
                source: localSource, replacingExpiry: nil)
        }
        try removeSupersededJournalEntries()
        SuiteEncryptionCheckpoint.reach(.sealed)
        return moved.count
    }

    /// Declares the policy of each key of `suite` declared by its name again under its name's row
    /// key, and removes the declaration in the clear: in an encrypted suite a key's declaration is
    /// found by its row key, and names nothing.
    private func hashDeclaredNames(suite: String, sealing: SuiteSealing) throws {
        let prefix = ReservedSuite.keyDeclarations(of: suite)
        var declared: [(reservedKey: String, name: String, bytes: [UInt8])] = []
        try scanRecords(suite: ReservedSuite.name, keyPrefix: prefix) { reservedKey, row in
            if let bytes = row.record.valueBytes { declared.append((reservedKey, String(reservedKey.utf8.dropFirst(prefix.utf8.count))!, bytes)) }
            return true
        }
        for (reservedKey, name, bytes) in declared {
            let hashed = ReservedSuite.keyDeclaration(suite: suite, key: sealing.rowKey(for: name))
            _ = try writePlain(suite: ReservedSuite.name, key: hashed, valueBytes: bytes, existing: try existingRow(suite: ReservedSuite.name, key: hashed))
            _ = try writePlain(
                suite: ReservedSuite.name, key: reservedKey, valueBytes: nil, existing: try existingRow(suite: ReservedSuite.name, key: reservedKey))
        }
        declarations = nil
    }

    /// Opens each sealed record of `entries` (a batch from `peer`, about to be merged) whose suite this
    /// process holds the key of (as the batch's own declaration, else this replica's, names it): one
    /// that does not open — a changed byte, or a record moved to another key or version — refuses the
    /// whole batch, so nothing of it changes the replica. A suite whose key this process does not hold
    /// is merged as it comes, sealed and unopened.
    package func checkSealed(_ entries: [(suite: String, key: String, record: Record)], from peer: ReplicaID) throws {
        // The declarations the batch brings: a replica meeting the suite for the first time has none yet.
        var declared: [String: [UInt8]] = [:]
        for (suite, key, record) in entries where suite == ReservedSuite.name && key.hasPrefix(SealDeclaration.prefix) {
            if case .data(let ids)? = try? record.value() { declared[String(key.dropFirst(SealDeclaration.prefix.count))] = Array(ids) }
        }
        var sealings: [String: SuiteSealing?] = [:]
        for (suite, key, record) in entries where record.isSealed {
            if sealings[suite] == nil { sealings[suite] = .some(try sealingToCheck(suite, declared: declared[suite])) }
            guard case let sealing?? = sealings[suite] else { continue }
            // One sealed with a key the suite was rotated from, which this process does not hold, is merged unopened.
            do {
                _ = try sealing.openWithAnyKey(record, storedKey: key)
            } catch {
                throw ConcordError.sealedRecordRefused(suite: suite, key: key, peer: peer, reason: "\(error)")
            }
        }
    }

    /// The sealing a merge checks `suite`'s sealed records with: this process's keys, when one is the
    /// key `declared` (a declaration's data; else this replica's declaration) names; nil when there is
    /// none to check with.
    private func sealingToCheck(_ suite: String, declared: [UInt8]?) throws -> SuiteSealing? {
        guard !keyring.keys(suite: suite).isEmpty else { return nil }
        let ids = try declared ?? SealDeclaration.keyIDs(txn, layout, suite: suite, path: path).map { $0.current + $0.previous.flatMap { $0 } }
        return SealDeclaration.checking(suite: suite, declared: ids, keyring: keyring)
    }
}
