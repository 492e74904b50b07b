import Foundation

extension Suite {
    /// Why `key` reads as it does: the value and its layer (the stored record, a default registered in
    /// this process, or nothing — an expired value answers nothing, its record saying when it expired,
    /// `record.expires`), the stored record's version as a time and its writer (with the
    /// name the writer gave itself), how it arrived (this process, another process, or a sync from
    /// which peer, and when), the merge policy and each replica's part, and the writes it beat, newest
    /// first. All read in one snapshot. A key nothing was ever stored under is not an error: the
    /// layer says where the read's answer (a default, or nothing) comes from.
    ///
    /// ```swift
    /// let why = try suite.explain("theme")
    /// if why.layer == .registeredDefault, let deleted = why.record, deleted.isTombstone {
    ///     print("deleted by", deleted.version.replica, why.writerName ?? "", "at", why.written!)   // so the default answers
    /// }
    /// ```
    ///
    /// - Parameter key: The key to explain.
    /// - Returns: One `Explanation`.
    /// - Throws: ``ConcordError`` `.invalidKey`, or ``ConcordError`` `.damaged` when a record, journal entry or
    ///   conflict does not decode.
    public func explain(_ key: String) throws -> Explanation {
        try Names.validateKey(key, inSuite: name)
        let suiteName = name
        let fallback = registeredDefault(forKey: key)
        let now = store.options.clock.read()
        return try store.read { r in
            let names = try r.replicaNames()
            func named(_ id: ReplicaID) -> NamedReplica { NamedReplica(id: id, name: names[id]) }
            func origin(_ source: ChangeSource, clock: UInt64?) -> Explanation.Arrival {
                switch source {
                case .process(let token): return token == ReplicaCore.processToken ? .thisProcess : .otherProcess
                case .sync(let peer): return .sync(from: named(peer), at: clock.map { Explanation.date(milliseconds: $0 >> 16) })
                }
            }
            let stored = try r.namedRecord(suite: suiteName, key: key, keyring: core.keyring)
            let record = stored?.record
            let value = try record.flatMap { try r.rowReader(suite: suiteName, key: key).value(of: $0, now: { now }) }
            let layer: Explanation.Layer = value != nil ? .stored : fallback != nil ? .registeredDefault : .nothing
            var arrival: Explanation.Arrival?
            if let stored, let (source, clock) = try r.journalOrigin(seq: stored.seq) { arrival = origin(source, clock: clock) }
            var policy = record?.policy ?? .lww
            if suiteName != ReservedSuite.name, let declared = try r.declaredPolicy(suite: suiteName, key: key, keyring: core.keyring) { policy = declared }
            var parts: [Explanation.Part] = []
            do {
                for part in try record?.state?.parts() ?? [] {
                    parts.append(
                        Explanation.Part(
                            replica: named(part.replica), isBase: part.isBase, value: part.value, time: Explanation.date(milliseconds: part.hlc >> 16)))
                }
            } catch {
                throw r.rowReader(suite: suiteName, key: key).undecodable(error)
            }
            let conflicts = try Self.beatenWrites(r, suite: suiteName, key: key, keyring: core.keyring)
            let beaten = conflicts.enumerated().map { i, c in
                Explanation.BeatenWrite(
                    number: i + 1, value: try? c.loser.value(), version: c.loser.version,
                    written: Explanation.date(c.loser.version), writer: named(c.loser.version.replica), origin: origin(c.loserSide.source, clock: nil),
                    beatenBy: c.winner.version, detected: Explanation.date(milliseconds: c.detectedMilliseconds))
            }
            return Explanation(
                suite: suiteName, key: key, value: value ?? fallback, layer: layer, record: record, written: record.map { Explanation.date($0.version) },
                writer: record.map { named($0.version.replica) }, arrival: arrival, expired: record?.hasExpired(at: now) == true,
                isDeviceLocal: try r.isDeviceLocal(suite: suiteName, key: key), policy: policy, parts: parts, beaten: beaten,
                conflicts: conflicts)
        }
    }

    /// Writes the `number`-th write `key` beat (as `explain(_:)` and `sync-tool why` list them, 1 the
    /// newest) back as a new local write of this replica — an ordinary write with a fresh version,
    /// so it wins here and syncs like any other. A beaten deletion is restored as a removal. The
    /// conflict stays in the log.
    ///
    /// ```swift
    /// let why = try suite.explain("theme")
    /// if !why.conflicts.isEmpty { try suite.restore("theme", conflict: 1) }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key whose beaten write to restore.
    ///   - number: Which beaten write, 1 for the newest.
    /// - Returns: The version written, or nil when nothing was (removing a key that holds nothing).
    /// - Throws: ``ConcordError`` `.noSuchConflict` when `number` is outside the list (nothing is written), or what
    ///   `set(_:forKey:)` throws.
    @discardableResult
    public func restore(_ key: String, conflict number: Int) throws -> Version? {
        try Names.validateKey(key, inSuite: name)
        let suiteName = name
        let beaten = try store.read { r in try Self.beatenWrites(r, suite: suiteName, key: key, keyring: core.keyring) }
        guard number >= 1, number <= beaten.count else {
            throw ConcordError.noSuchConflict(suite: name, key: key, number: number, count: beaten.count)
        }
        let loser = beaten[number - 1].loser
        let value: Value?
        do { value = try loser.value() } catch {
            throw ConcordError.damaged(path: store.directory, reason: "the beaten write \(number) of \(name)/\(key) does not decode: \(error)")
        }
        guard let value else { return try remove(key) }
        return try set(value, forKey: key)
    }

    /// Writes the `number`-th write `key` beat back as a new local write, without blocking the
    /// cooperative pool. See the synchronous `restore(_:conflict:)`.
    ///
    /// ```swift
    /// try await suite.restore("theme", conflict: 1)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key whose beaten write to restore.
    ///   - number: Which beaten write, 1 for the newest.
    /// - Returns: The version written, or nil when nothing was.
    /// - Throws: What `restore(_:conflict:)` throws; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func restore(_ key: String, conflict number: Int) async throws -> Version? {
        try await store.thread.run { [self] in try restore(key, conflict: number) }
    }

    /// The conflict log's entries whose loser was a write of `key`, newest loser first.
    static func beatenWrites(_ r: some ReplicaRows, suite: String, key: String, keyring: SuiteKeyring) throws -> [Conflict] {
        try r.conflicts(suite: suite).compactMap { try $0.opened(r, keyring: keyring) }.filter { $0.key == key }.sorted(by: Conflict.newerLoser)
    }
}

extension Conflict {
    /// The order beaten writes are numbered in (``Suite/explain(_:)``, `restore`, `sync-tool conflicts`):
    /// the newer losing version first, then the later found.
    package static func newerLoser(_ a: Conflict, _ b: Conflict) -> Bool {
        a.loser.version != b.loser.version
            ? a.loser.version > b.loser.version : a.detectedMilliseconds > b.detectedMilliseconds
    }
}
