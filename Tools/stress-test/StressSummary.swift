import Foundation

/// The end of a run: operations per second and latency by kind, kills, and each invariant.
struct StressSummary {
    struct KindStats {
        var count: Int
        var p50: Double
        var p99: Double
    }

    let seconds: Double
    let seed: UInt64
    let replicas: Int
    let processes: Int
    let kills: Int
    let syncs: Int
    let checks: CheckResults
    var kinds: [String: KindStats] = [:]
    var syncFailures: [String] = []
    var restores = RestoreFault()
    /// Whether the run was `--encrypted` (the summary then says whether any value was stored in the clear).
    var encrypted = false

    init(seconds: Double, seed: UInt64, replicas: Int, processes: Int, kills: Int, syncs: Int, checks: CheckResults) {
        self.seconds = seconds
        self.seed = seed
        self.replicas = replicas
        self.processes = processes
        self.kills = kills
        self.syncs = syncs
        self.checks = checks
    }

    var ok: Bool { checks.ok && syncFailures.isEmpty && restores.undetected.isEmpty }

    mutating func addLatencies(_ operations: [LoggedOperation]) {
        for (kind, ops) in Dictionary(grouping: operations, by: { $0.kind.rawValue }) {
            kinds[kind] = Self.stats(ops.map(\.latencyMicroseconds))
        }
    }

    mutating func addSyncLatencies(_ latencies: [Double], failures: [String]) {
        if !latencies.isEmpty { kinds["sync"] = Self.stats(latencies) }
        syncFailures = failures
    }

    static func stats(_ values: [Double]) -> KindStats {
        let sorted = values.sorted()
        func at(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        return KindStats(count: sorted.count, p50: at(0.5), p99: at(0.99))
    }

    var text: String {
        var out = String(
            format: "stress-test: %.1f s, seed %llu, %d replicas, %d worker processes, %d kills, %d syncs\n",
            seconds, seed, replicas, processes, kills, syncs)
        out += "kind         ops      ops/s    p50 µs    p99 µs\n"
        for kind in kinds.keys.sorted() {
            let k = kinds[kind]!
            out +=
                kind.padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(format: "%7d %10.1f %9.1f %9.1f\n", k.count, Double(k.count) / seconds, k.p50, k.p99)
        }
        func line(_ name: String, _ value: Int) -> String { "  \(value == 0 ? "ok  " : "FAIL") \(name): \(value)\n" }
        out += "invariants (\(checks.acknowledged) acknowledged operations checked):\n"
        out += line("lost writes", checks.lostWrites)
        out += line("diverged keys", checks.divergedKeys)
        out += line("double-counted increments", checks.doubleCounted)
        out += "  global counter: \(checks.globalCounter) in every replica for \(checks.globalIncrements) acknowledged increments\n"
        out += line("exclusive-choice violations", checks.exclusiveViolations)
        out += line("replicas failing check", checks.damagedReplicas)
        out += line("conflict-log entries inconsistent with the records (of \(checks.conflicts) logged)", checks.inconsistentConflicts)
        if encrypted { out += line("values of the encrypted suite stored in the clear", checks.clearValues) }
        out += line("failed syncs", syncFailures.count)
        if restores.restores > 0 || restores.backupsTaken > 0 {
            out +=
                "  restores from a backup: \(restores.restores) of \(restores.backupsTaken) backups (\(restores.detected) found by the first sync, \(restores.unchanged) with nothing to find)\n"
            out += line("restores the first sync did not find", restores.undetected.count)
        }
        for d in checks.details + syncFailures.prefix(10) + restores.undetected.prefix(5) { out += "    \(d)\n" }
        out += ok ? "OK: every invariant held\n" : "FAILED\n"
        return out
    }

    var json: String {
        var fields: [String] = [
            "\"ok\":\(ok)", "\"seconds\":\(String(format: "%.2f", seconds))", "\"seed\":\(seed)",
            "\"replicas\":\(replicas)", "\"processes\":\(processes)", "\"kills\":\(kills)", "\"syncs\":\(syncs)",
            "\"acknowledged_operations\":\(checks.acknowledged)",
            "\"lost_writes\":\(checks.lostWrites)", "\"diverged_keys\":\(checks.divergedKeys)",
            "\"double_counted\":\(checks.doubleCounted)", "\"exclusive_violations\":\(checks.exclusiveViolations)",
            "\"global_counter\":\(checks.globalCounter)", "\"global_increments\":\(checks.globalIncrements)",
            "\"replicas_failing_check\":\(checks.damagedReplicas)", "\"conflicts_logged\":\(checks.conflicts)",
            "\"inconsistent_conflicts\":\(checks.inconsistentConflicts)", "\"clear_values\":\(checks.clearValues)",
            "\"failed_syncs\":\(syncFailures.count)",
            "\"backups\":\(restores.backupsTaken)", "\"restores\":\(restores.restores)", "\"restores_found\":\(restores.detected)",
            "\"restores_unchanged\":\(restores.unchanged)", "\"restores_not_found\":\(restores.undetected.count)"
        ]
        let kindFields = kinds.keys.sorted().map { kind -> String in
            let k = kinds[kind]!
            return
                "\"\(kind)\":{\"count\":\(k.count),\"ops_per_second\":\(String(format: "%.1f", Double(k.count) / seconds)),\"p50_us\":\(String(format: "%.1f", k.p50)),\"p99_us\":\(String(format: "%.1f", k.p99))}"
        }
        fields.append("\"operations\":{\(kindFields.joined(separator: ","))}")
        let details = (checks.details + syncFailures + restores.undetected).map {
            "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        fields.append("\"details\":[\(details.joined(separator: ","))]")
        return "{" + fields.joined(separator: ",") + "}"
    }
}
