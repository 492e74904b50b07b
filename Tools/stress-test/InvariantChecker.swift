import Concord
import Foundation

/// What the checks found after the final sync round.
struct CheckResults {
    var lostWrites = 0
    var divergedKeys = 0
    var doubleCounted = 0
    var exclusiveViolations = 0
    var damagedReplicas = 0
    var inconsistentConflicts = 0
    /// With `--encrypted`: records of the data suite a replica holds in the clear (none may be: the suite
    /// was encrypted before its first write), counting a replica holding no sealed record at all as one.
    var clearValues = 0
    var conflicts = 0
    var details: [String] = []
    var acknowledged = 0
    /// The global counter's acknowledged increments and its final value.
    var globalIncrements = 0
    var globalCounter = 0
    /// Broken invariants that can be placed in time: each lost write or doubly held choice, with the
    /// wall-clock milliseconds of its version (when it was written), for `--timeline`.
    var located: [(milliseconds: UInt64, what: String)] = []

    var ok: Bool {
        lostWrites == 0 && divergedKeys == 0 && doubleCounted == 0 && exclusiveViolations == 0 && damagedReplicas == 0 && inconsistentConflicts == 0
            && clearValues == 0
    }

    mutating func note(_ s: String) { if details.count < 50 { details.append(s) } }

    mutating func locate(_ version: Version, _ what: String) { if located.count < 500 { located.append((version.milliseconds, what)) } }
}

/// Checks every invariant against the workers' logs and the replicas' final records.
struct InvariantChecker {
    let replicas: [(name: String, path: String)]
    let operations: [LoggedOperation]
    let workerReplica: [Int: String]
    let killedPerReplica: [String: Int]
    /// Replicas restored from a backup during the run: their device-local writes after the backup are
    /// gone (no other replica holds them), so a missing one is not a lost write.
    let restored: Set<String>
    /// With `--encrypted`: the data suite's key, which the checks read it with.
    let suiteKey: EncryptionKey?

    init(
        replicas: [(String, String)], logs: [(worker: Int, replica: String, path: String)], killedPerReplica: [String: Int],
        restored: Set<String> = [], suiteKey: EncryptionKey? = nil
    ) {
        self.restored = restored
        self.suiteKey = suiteKey
        self.replicas = replicas
        self.operations = logs.flatMap { LoggedOperation.parse(file: $0.path, worker: $0.worker) }
        self.workerReplica = Dictionary(logs.map { ($0.worker, $0.replica) }, uniquingKeysWith: { a, _ in a })
        self.killedPerReplica = killedPerReplica
    }

    func check() throws -> CheckResults {
        var r = CheckResults()
        r.acknowledged = operations.count
        let stores = try Dictionary(
            uniqueKeysWithValues: replicas.map { ($0.name, try Store(path: $0.path, options: Worker.options(holding: suiteKey))) })
        for (name, store) in stores {
            let report = try store.integrityReport()
            if !report.isSound {
                r.damagedReplicas += 1
                r.note("\(name): check failed: \(report.problems.prefix(3))")
            }
        }
        if suiteKey != nil { try checkSealed(stores, &r) }
        try checkConflictLogs(stores, &r)
        try checkConvergence(stores, &r)
        try checkDeviceLocalKeys(stores, &r)
        try checkExpiredKeys(stores, &r)
        try checkNames(stores, &r)
        try checkWrites(stores, &r)
        try checkCounters(stores, &r)
        try checkGlobalCounter(stores, &r)
        checkExclusive(&r)
        return r
    }

    /// With `--encrypted`: every record of the data suite, as each replica stores it, is sealed (a
    /// deletion in the clear aside), and each replica holds some.
    private func checkSealed(_ stores: [String: Store], _ r: inout CheckResults) throws {
        for (name, store) in stores {
            let (sealed, clear) = try store.read { rows in
                var counts = (sealed: 0, clear: [String]())
                try rows.scanRecords(suite: Worker.dataSuite) { _, key, row in
                    if row.record.isSealed {
                        counts.sealed += 1
                    } else if !row.record.isTombstone {
                        counts.clear.append(key)
                    }
                    return true
                }
                return counts
            }
            r.clearValues += clear.count + (sealed == 0 ? 1 : 0)
            if !clear.isEmpty { r.note("\(name): \(clear.count) values of the encrypted suite in the clear: \(clear.prefix(3))") }
            if sealed == 0 { r.note("\(name): no sealed record of the encrypted suite") }
        }
    }

    /// Every conflict logged kept a loser that really lost: its version is below the winner's, and
    /// the record now held for the key is at least the winner (a logged loser never resurfaces).
    private func checkConflictLogs(_ stores: [String: Store], _ r: inout CheckResults) throws {
        for (name, store) in stores {
            for conflict in try store.conflicts() {
                let current = try store.suite(conflict.suite).record(forKey: conflict.key)
                if conflict.loser.version >= conflict.winner.version {
                    r.inconsistentConflicts += 1
                    r.note(
                        "\(name): conflict on \(conflict.suite)/\(conflict.key) logged a loser \(conflict.loser.version) not below its winner \(conflict.winner.version)"
                    )
                } else if let current, current.version < conflict.winner.version {
                    r.inconsistentConflicts += 1
                    r.note("\(name): \(conflict.suite)/\(conflict.key) holds \(current.version), older than the conflict's winner")
                }
                r.conflicts += 1
            }
        }
    }

    /// Every replica holds identical records (values and versions) for every synced suite — but for
    /// the device-local keys, which differ between replicas by design.
    private func checkConvergence(_ stores: [String: Store], _ r: inout CheckResults) throws {
        guard replicas.count > 1 else { return }
        // The reserved suite too: policy declarations and the replicas' names sync like the data.
        for suite in [Worker.dataSuite, Worker.counterSuite, Worker.choiceSuite, "_concord"] {
            var views: [[String: Record]] = []
            for (name, _) in replicas {
                views.append(Dictionary(uniqueKeysWithValues: try stores[name]!.suite(suite).records().map { ($0.key, $0.record) }))
            }
            let keys = Set(views.flatMap(\.keys)).filter { suite != Worker.dataSuite || !$0.hasPrefix(Worker.localPrefix) }
            for key in keys.sorted() where Set(views.map { $0[key] }).count > 1 {
                r.divergedKeys += 1
                r.note("diverged: \(suite)/\(key)")
            }
        }
    }

    /// A device-local key's records never leave their replica: every one a replica holds was written
    /// there (a set, a delete, a reset), none by another replica.
    private func checkDeviceLocalKeys(_ stores: [String: Store], _ r: inout CheckResults) throws {
        for (name, store) in stores {
            for (key, record) in try store.suite(Worker.dataSuite).records()
            where key.hasPrefix(Worker.localPrefix) && record.version.replica != store.replicaID {
                r.divergedKeys += 1
                r.note("\(name): device-local \(key) holds \(record.version), written by another replica")
                r.locate(record.version, "device-local \(key) reached \(name) from another replica")
            }
        }
    }

    /// A value whose expiry has passed reads as absent on every replica, whichever wrote it.
    private func checkExpiredKeys(_ stores: [String: Store], _ r: inout CheckResults) throws {
        let now = Date()
        for (name, store) in stores {
            let suite = try store.suite(Worker.dataSuite)
            for (key, record) in try suite.records() where (record.expires.map { $0 <= now }) == true {
                if try suite.storedValue(forKey: key) != nil || suite.contains(key) {
                    r.divergedKeys += 1
                    r.note("\(name): \(key) expired at \(record.expires!) but still reads")
                }
            }
        }
    }

    /// Every replica holds the name every replica gave itself at the start (`Store.setName`).
    private func checkNames(_ stores: [String: Store], _ r: inout CheckResults) throws {
        guard replicas.count > 1 else { return }
        let given = try Dictionary(uniqueKeysWithValues: replicas.map { (try stores[$0.name]!.replicaID, $0.name) })
        for (name, store) in stores {
            let held = try store.replicaNames()
            for (id, expected) in given where held[id] != expected {
                r.divergedKeys += 1
                r.note("\(name): holds \(held[id].map { "the name \($0)" } ?? "no name") for \(expected)'s replica \(id)")
            }
        }
    }

    /// Every acknowledged set or delete is present, or superseded by a greater version.
    private func checkWrites(_ stores: [String: Store], _ r: inout CheckResults) throws {
        var finals: [String: [String: Record]] = [:]
        for (name, store) in stores {
            finals[name] = Dictionary(uniqueKeysWithValues: try store.suite(Worker.dataSuite).records().map { ($0.key, $0.record) })
        }
        for op in operations where [.set, .del, .setLocal, .setExpiring].contains(op.kind) {
            guard let replica = workerReplica[op.worker], let hlc = UInt64(op.fields[1], radix: 16), let id = ReplicaID(hex: op.fields[2]) else { continue }
            let logged = Version(hlc: hlc, replica: id)
            let key = op.fields[0]
            // A restore takes back a replica's device-local writes after its backup: nothing brings them back.
            if op.kind == .setLocal, restored.contains(replica) {
                let final = finals[replica]?[key]
                if final == nil || final!.version < logged { continue }
            }
            guard let final = finals[replica]?[key] else {
                r.lostWrites += 1
                r.note("lost: \(op.kind.rawValue) \(key) \(logged) by worker \(op.worker): no record")
                r.locate(logged, "lost \(op.kind.rawValue) of \(key) by worker \(op.worker) (\(replica)): no record")
                continue
            }
            if final.version < logged {
                r.lostWrites += 1
                r.note("lost: \(op.kind.rawValue) \(key) \(logged) replaced by older \(final.version)")
                r.locate(logged, "lost \(op.kind.rawValue) of \(key) by worker \(op.worker) (\(replica)): replaced by an older version")
            } else if final.version == logged {
                let value = try final.value()
                let expected: Value? = op.kind == .del ? nil : .string(op.fields[3])
                if value != expected {
                    r.lostWrites += 1
                    r.note("lost: \(key) at \(logged) holds \(String(describing: value))")
                    r.locate(logged, "lost \(op.kind.rawValue) of \(key) by worker \(op.worker) (\(replica)): another value at its version")
                }
            }
        }
    }

    /// Each replica's counter equals its acknowledged increments, each counted exactly once
    /// (a worker killed between commit and log leaves at most one increment unlogged).
    private func checkCounters(_ stores: [String: Store], _ r: inout CheckResults) throws {
        for (name, _) in replicas {
            let key = "count-\(name)"
            let values = operations.filter { $0.kind == .incr && $0.fields[0] == key }.compactMap { Int($0.fields[1]) }
            let distinct = Set(values)
            if distinct.count != values.count {
                r.doubleCounted += values.count - distinct.count
                r.note("\(key): \(values.count - distinct.count) increments returned a value twice")
            }
            let final = try stores[name]!.suite(Worker.counterSuite).get(key, as: Int.self) ?? 0
            if let top = distinct.max(), top > final {
                r.lostWrites += 1
                r.note("\(key): acknowledged value \(top) but the counter is \(final)")
            }
            let unlogged = final - distinct.count
            if unlogged > (killedPerReplica[name] ?? 0) {
                r.doubleCounted += unlogged - (killedPerReplica[name] ?? 0)
                r.note("\(key): \(final) counted, \(distinct.count) acknowledged, only \(killedPerReplica[name] ?? 0) kills")
            }
        }
    }

    /// At most one holder of each exclusive choice at any time. Walking each key's claims in version
    /// order, a claim may only land when the previous claim's lease had expired (its time is past the
    /// lease's end), or its holder had released it (a release only succeeds while holding), or its
    /// holder was killed holding it (its claim is the last thing it logged: a dead holder loses the
    /// choice at once).
    private func checkExclusive(_ r: inout CheckResults) {
        var byKey: [String: [(version: Version, op: LoggedOperation)]] = [:]
        for op in operations where op.kind == .claim {
            guard let hlc = UInt64(op.fields[1], radix: 16), let id = ReplicaID(hex: op.fields[2]) else { continue }
            byKey[op.fields[0], default: []].append((Version(hlc: hlc, replica: id), op))
        }
        for (key, claims) in byKey {
            let ordered = claims.sorted { $0.version < $1.version }
            for (previous, next) in zip(ordered, ordered.dropFirst()) {
                let until = UInt64(previous.op.fields[3]) ?? 0
                guard next.version.milliseconds < until, !previous.op.released, !previous.op.lastInLog else { continue }
                r.exclusiveViolations += 1
                r.note("\(key): worker \(next.op.worker) claimed at \(next.version) while worker \(previous.op.worker) held it until \(until)")
                r.locate(next.version, "\(key) claimed by worker \(next.op.worker) while worker \(previous.op.worker) held it")
            }
        }
    }

    /// The counter every worker of every replica increments: in every replica, after the final sync
    /// round, it equals the number of acknowledged increments — plus at most one unlogged increment
    /// per killed worker (killed between its commit and its log line), never fewer.
    private func checkGlobalCounter(_ stores: [String: Store], _ r: inout CheckResults) throws {
        let acknowledged = operations.filter { $0.kind == .incrGlobal }.count
        let kills = killedPerReplica.values.reduce(0, +)
        r.globalIncrements = acknowledged
        for (name, store) in stores {
            let value = try store.suite(Worker.counterSuite).get(Worker.globalCounter, as: Int.self) ?? 0
            r.globalCounter = value
            if value < acknowledged {
                r.lostWrites += acknowledged - value
                r.note("\(name): \(Worker.globalCounter) is \(value), fewer than the \(acknowledged) acknowledged increments")
            } else if value > acknowledged + kills {
                r.doubleCounted += value - acknowledged - kills
                r.note("\(name): \(Worker.globalCounter) is \(value): \(acknowledged) acknowledged, only \(kills) kills")
            }
        }
    }
}
