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
            if case .data(let id)? = try? record.value() { declared[String(key.dropFirst(SealDeclaration.prefix.count))] = Array(id) }
        }
        var sealings: [String: SuiteSealing?] = [:]
        for (suite, key, record) in entries where record.isSealed {
            if sealings[suite] == nil { sealings[suite] = .some(try sealingToCheck(suite, declared: declared[suite])) }
            guard case let sealing?? = sealings[suite] else { continue }
            do {
                _ = try sealing.openStored(record, storedKey: key)
            } catch {
                throw ConcordError.sealedRecordRefused(suite: suite, key: key, peer: peer, reason: "\(error)")
            }
        }
    }

    /// The sealing a merge checks `suite`'s sealed records with: this process's key, when it is the
    /// one `declared` (or this replica's declaration) names; nil when there is none to check with.
    private func sealingToCheck(_ suite: String, declared: [UInt8]?) throws -> SuiteSealing? {
        guard keyring.key(suite: suite) != nil else { return nil }
        return SealDeclaration.checking(suite: suite, declared: try declared ?? SealDeclaration.keyID(txn, layout, suite: suite, path: path), keyring: keyring)
    }
}
