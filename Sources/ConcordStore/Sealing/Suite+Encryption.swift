extension Store {
    /// Gives this process `key` for every suite of the replica declared encrypted: a suite encrypted
    /// with it reads and writes, one encrypted with another key is refused as `.suiteKeyMismatch`
    /// rather than `.suiteKeyMissing` (what a command given one key file needs). Returns the suites
    /// `key` opens.
    @discardableResult
    package func holdForEncryptedSuites(_ key: EncryptionKey) throws -> [String] {
        let declared = try read { r in
            var out: [(String, [UInt8])] = []
            try r.scanRecords(suite: ReservedSuite.name, keyPrefix: SealDeclaration.prefix) { reservedKey, row in
                if case .data(let id)? = try? row.record.value() { out.append((String(reservedKey.dropFirst(SealDeclaration.prefix.count)), Array(id))) }
                return true
            }
            return out
        }
        for (suite, _) in declared { core.keyring.add(key, suite: suite) }
        return declared.filter { EncryptionKey.same(id: $0.1, as: key) }.map(\.0)
    }
}

extension Suite {
    /// Declares the suite encrypted with `key`: from then on its values and its keys' names are
    /// sealed before they reach `data.mdb`, the journal, a bundle, the sync protocol or the hub, and
    /// only a process holding the key reads or writes them. Values stored before are sealed again in
    /// the same transaction (their names stay behind as tombstones until tombstone collection). The
    /// declaration syncs, so every replica knows the suite is encrypted, and by which key, before it
    /// holds the key; the key itself is never written anywhere. This process holds the key from then on.
    ///
    /// ```swift
    /// let key = EncryptionKey.generate()
    /// let secrets = try store.suite("secrets")
    /// try secrets.encrypt(with: key)
    /// try secrets.set("s3cret", forKey: "token")                 // sealed on disk
    /// ```
    ///
    /// Counters, max and min keys and sets still merge (each replica's contribution is sealed on its
    /// own, and key holders join them), keys declared by name are declared again by their row keys,
    /// and values do not expire.
    ///
    /// - Returns: How many stored values were sealed again (0 when the suite was encrypted with `key` already).
    /// - Throws: ``ConcordError`` `.suiteKeyMismatch` when the suite is encrypted with another key;
    ///   `.policyMismatch` when it holds a counter's, set's, max's or min's state in the clear; `.unsupportedValue`
    ///   when it holds a value that expires; `.invalidArgument` when a key of it stays on this device;
    ///   `.reservedSuite`; nothing is written then.
    @discardableResult
    public func encrypt(with key: EncryptionKey) throws -> Int {
        try core.write { w in try w.encryptSuite(name, with: key) }
    }

    /// Gives this process the key of the encrypted suite, so it can read and write it (for every
    /// handle on this replica). A suite that is not encrypted is not changed by it: encrypt it with
    /// ``encrypt(with:)``.
    ///
    /// <!-- assume: let key = EncryptionKey.generate() -->
    /// ```swift
    /// try store.suite("secrets").useKey(key)
    /// ```
    ///
    /// - Throws: ``ConcordError`` `.suiteKeyMismatch` when the suite is encrypted with another key
    ///   (the key is not kept then).
    public func useKey(_ key: EncryptionKey) throws {
        try core.read { txn in
            if let declared = try SealDeclaration.keyID(txn, core.layout, suite: name, path: core.path), !EncryptionKey.same(id: declared, as: key) {
                throw ConcordError.suiteKeyMismatch(suite: name, given: key, declared: declared, path: core.path)
            }
        }
        core.keyring.add(key, suite: name)
    }

    /// Whether the suite is declared encrypted (on this replica, by a declaration written here or synced).
    ///
    /// ```swift
    /// if try store.suite("secrets").isEncrypted { print("sealed") }
    /// ```
    public var isEncrypted: Bool {
        get throws { try core.read { txn in try SealDeclaration.keyID(txn, core.layout, suite: name, path: core.path) != nil } }
    }
}
