import Concord
import Foundation
import ScratchSSH
import SplitMix

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the world: creates the replicas, starts the workers and the syncs, kills and restarts
/// processes at the chosen rate, stops everything, runs a full sync round and checks the invariants.
final class Coordinator {
    static let replicaNames = ["app-group", "watch", "device", "tablet", "laptop", "tv", "car", "desk"]
    static let roles = ["app", "extension", "widget", "intent", "clip"]

    let options: StressOptions
    let root: String
    let binDirectory: String
    var random: SeededRandom
    var workers: [WorkerProcess] = []
    var syncs: [SyncProcess] = []
    var kills = 0
    var syncRuns = 0
    var syncFailures: [String] = []
    var syncLatencies: [Double] = []
    var killedPerReplica: [String: Int] = [:]
    /// With `--hub`: the hub every sync goes through.
    let hub: StressHub?
    /// With `--transport ssh`: the sshd every sync reaches its second replica through.
    let ssh: ScratchSSH?
    var farKills = 0
    /// Syncs that exited 5 (connection dropped): at most one per far serve killed.
    var unexplainedDrops = 0
    /// With `--restore-rate`: the backups taken and the restores made (see `RestoreFault`).
    var restoreFault = RestoreFault()
    /// With `--encrypted`: the data suite's key, made for the run, and the file every process reads it from.
    let suiteKey: EncryptionKey?
    var keyFile: String { root + "/data.key" }
    /// The variable naming the key file (`sync-tool`'s, which the workers read too).
    static let keyFileVariable = "CONCORD_KEY_FILE"
    /// With `--timeline`: operations by kind over time, and when each kill, sync, restore and failure happened.
    let timeline: TimelineRecorder?
    /// The failures already given to the timeline.
    private var failuresRecorded = 0

    struct WorkerProcess {
        let id: Int
        let replica: String
        let role: String
        var incarnation: Int
        var process: Process
        var logs: [String]
    }

    struct SyncProcess {
        let process: Process
        let started: UInt64
        let pair: (String, String)
    }

    init(options: StressOptions) throws {
        self.options = options
        random = SeededRandom(seed: options.seed)
        timeline = options.timeline == nil ? nil : TimelineRecorder()
        hub = options.hub ? try StressHub() : nil
        ssh = options.transport == "ssh" ? try ScratchSSH() : nil
        binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        if let dir = options.directory {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            root = dir
        } else {
            root = NSTemporaryDirectory() + "/concord-stress-\(options.seed)-\(getpid())"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        suiteKey = options.encrypted ? EncryptionKey.generate() : nil
    }

    /// The environment of every process the run starts: the hub account's password, the key file.
    var childEnvironment: [String: String] {
        var environment = hub?.environment ?? ProcessInfo.processInfo.environment
        if suiteKey != nil { environment[Self.keyFileVariable] = keyFile }
        return environment
    }

    var replicas: [String] { (0..<options.replicas).map { $0 < Self.replicaNames.count ? Self.replicaNames[$0] : "replica-\($0)" } }
    func path(_ replica: String) -> String { root + "/" + replica }
    var stopPath: String { root + "/stop" }

    func run() throws -> StressSummary {
        if let suiteKey { try suiteKey.write(toFile: keyFile) }
        for replica in replicas {
            let store = try Store(path: path(replica), options: Worker.options(holding: suiteKey))
            try store.suite(Worker.counterSuite).declare(.counter, forKey: Worker.globalCounter)
            if let suiteKey {
                try store.suite(Worker.dataSuite).encrypt(with: suiteKey)
            } else {
                try store.suite(Worker.dataSuite).setDeviceLocal(true, forKeysWithPrefix: Worker.localPrefix)
            }
            try store.setName(replica) // a record of the reserved suite: every replica must end up holding every name
        }
        var id = 0
        for replica in replicas {
            for p in 0..<options.processes {
                let role = Self.roles[p % Self.roles.count]
                let log = root + "/worker-\(id)-0.log"
                workers.append(
                    WorkerProcess(
                        id: id, replica: replica, role: role, incarnation: 0,
                        process: try startWorker(id: id, replica: replica, incarnation: 0, log: log), logs: [log]))
                id += 1
            }
        }
        progress("started \(workers.count) workers on \(replicas.count) replicas in \(root) (seed \(options.seed))")
        let started = Date()
        timeline?.begin()
        var nextKill = started.addingTimeInterval(nextInterval(rate: options.killRate))
        var nextRestore = started.addingTimeInterval(nextInterval(rate: options.restoreRate))
        var nextSync = started
        var nextProgress = started.addingTimeInterval(1)
        while Date().timeIntervalSince(started) < options.seconds {
            let now = Date()
            reapSyncs()
            if replicas.count > 1 || hub != nil, now >= nextSync, syncs.count < 2 {
                startSync()
                nextSync = now.addingTimeInterval(Double.random(in: 0.05...0.3, using: &random))
            }
            if options.killRate > 0, now >= nextKill {
                try killSomething()
                nextKill = now.addingTimeInterval(nextInterval(rate: options.killRate))
            }
            if options.restoreRate > 0, now >= nextRestore {
                let before = restoreFault
                try restoreFaultEvent()
                recordRestore(since: before)
                nextRestore = Date().addingTimeInterval(nextInterval(rate: options.restoreRate))
            }
            try restartDeadWorkers()
            recordFailures()
            timeline?.sample(logs: workers.flatMap(\.logs))
            if now >= nextProgress {
                progress(
                    String(
                        format: "t=%.0fs kills=%d (far serves %d) syncs=%d restores=%d", now.timeIntervalSince(started), kills, farKills, syncRuns,
                        restoreFault.restores))
                nextProgress = now.addingTimeInterval(1)
            }
            usleep(5_000)
        }
        let elapsed = Date().timeIntervalSince(started)
        timeline?.sample(logs: workers.flatMap(\.logs), force: true)
        timeline?.markStop()
        // Stop: ask workers to finish their current operation, wait, and let running syncs finish.
        _ = FileManager.default.createFile(atPath: stopPath, contents: nil)
        for w in workers { waitOrKill(w.process, seconds: 30) }
        for s in syncs {
            waitOrKill(s.process, seconds: 60)
            record(s)
        }
        syncs.removeAll()
        progress("workers stopped; final sync round")
        try finalSyncRound()
        recordFailures()
        let checker = InvariantChecker(
            replicas: replicas.map { ($0, path($0)) },
            logs: workers.flatMap { w in w.logs.map { (w.id, w.replica, $0) } },
            killedPerReplica: killedPerReplica, restored: restoreFault.restored, suiteKey: suiteKey)
        let result = try checker.check()
        var summary = StressSummary(
            seconds: elapsed, seed: options.seed, replicas: replicas.count, processes: workers.count,
            kills: kills, syncs: syncRuns, checks: result)
        summary.addLatencies(checker.operations)
        summary.addSyncLatencies(syncLatencies, failures: syncFailures)
        summary.restores = restoreFault
        summary.encrypted = suiteKey != nil
        if let timeline {
            timeline.markEnd()
            for broken in result.located { timeline.record(.invariant, broken.what, atWallMilliseconds: broken.milliseconds) }
            if !result.ok { timeline.record(.failure, "the checks after the final sync round found a broken invariant") }
        }
        if !options.keep && options.directory == nil { try? FileManager.default.removeItem(atPath: root) }
        return summary
    }

    // MARK: - Processes

    private func startWorker(id: Int, replica: String, incarnation: Int, log: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binDirectory + "/stress-test")
        p.arguments = ["--worker", path(replica), replica, String(id), String(incarnation), String(options.seed), options.mix.argument, log, stopPath]
        p.environment = childEnvironment
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle(forWritingAtPath: "/dev/stderr") ?? FileHandle.standardError
        try p.run()
        return p
    }

    private func restartDeadWorkers() throws {
        for i in workers.indices where !workers[i].process.isRunning {
            let w = workers[i]
            if w.process.terminationReason == .exit && w.process.terminationStatus != 0 {
                progress("worker \(w.id) (\(w.replica)) exited with status \(w.process.terminationStatus); restarting")
                timeline?.record(.workerFailed, "worker \(w.id) (\(w.replica)) exited with status \(w.process.terminationStatus)")
            }
            let incarnation = w.incarnation + 1
            let log = root + "/worker-\(w.id)-\(incarnation).log"
            workers[i].incarnation = incarnation
            workers[i].logs.append(log)
            workers[i].process = try startWorker(id: w.id, replica: w.replica, incarnation: incarnation, log: log)
        }
    }

    private func killSomething() throws {
        let targets = workers.count + syncs.count
        let pick = Int.random(in: 0..<targets, using: &random)
        if pick < workers.count {
            let w = workers[pick]
            guard w.process.isRunning else { return }
            kill(w.process.processIdentifier, SIGKILL)
            w.process.waitUntilExit()
            killedPerReplica[w.replica, default: 0] += 1
            timeline?.record(.workerKilled, "worker \(w.id) (\(w.role), \(w.replica))")
        } else if ssh != nil, Bool.random(using: &random), let far = farServe(of: syncs[pick - workers.count]) {
            // The far side of a remote sync: its client sees the connection drop (exit 5).
            kill(far, SIGKILL)
            farKills += 1
            timeline?.record(.serveKilled)
        } else {
            let s = syncs.remove(at: pick - workers.count)
            kill(s.process.processIdentifier, SIGKILL)
            s.process.waitUntilExit()
            timeline?.record(.syncKilled, "\(s.pair.0) ↔ \(s.pair.1)")
        }
        kills += 1
    }

    private func startSync() {
        let a = replicas.randomElement(using: &random)!
        var b = hub == nil ? replicas.randomElement(using: &random)! : "hub"
        while b == a { b = replicas.randomElement(using: &random)! }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binDirectory + "/sync-tool")
        p.arguments = hub?.syncArguments(path(a)) ?? syncArguments(a, b) + ["--json"]
        p.environment = childEnvironment
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do {
            try p.run()
            syncs.append(SyncProcess(process: p, started: DispatchTime.now().uptimeNanoseconds, pair: (a, b)))
            syncRuns += 1
        } catch {
            syncFailures.append("could not start sync-tool: \(error)")
        }
    }

    /// The arguments of a sync between two directories, the second reached over ssh with `--transport ssh`.
    func syncArguments(_ a: String, _ b: String) -> [String] {
        guard let ssh else { return ["sync", path(a), path(b)] }
        return ["sync", path(a), ssh.address(path(b)), "--rsh", ssh.rsh, "--remote-command", binDirectory + "/sync-tool"]
    }

    /// The far `sync-tool serve` of a running remote sync, waiting up to a second for the ssh login
    /// to start it (nil if the sync ends first).
    private func farServe(of sync: SyncProcess) -> Int32? {
        let deadline = Date().addingTimeInterval(1)
        while sync.process.isRunning && Date() < deadline {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry), let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
                let parts = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                if parts.count > 2, parts[1] == "serve", parts[2] == path(sync.pair.1) { return pid }
            }
            usleep(5_000)
        }
        return nil
    }

    private func reapSyncs() {
        syncs.removeAll { s in
            guard !s.process.isRunning else { return false }
            record(s)
            return true
        }
    }

    func record(_ s: SyncProcess) {
        if s.process.terminationReason == .exit {
            if s.process.terminationStatus == 0 {
                syncLatencies.append(Double(DispatchTime.now().uptimeNanoseconds - s.started) / 1000)
                timeline?.record(.syncDone, "\(s.pair.0) ↔ \(s.pair.1)")
            } else if ssh != nil && s.process.terminationStatus == 5 && unexplainedDrops < farKills {
                unexplainedDrops += 1 // 5: the connection dropped, as it does when this run killed the far serve
            } else {
                syncFailures.append("sync \(s.pair.0) ↔ \(s.pair.1) exited with status \(s.process.terminationStatus)")
            }
        }
    }

    private func finalSyncRound() throws {
        guard replicas.count > 1 || hub != nil else { return }
        // Two passes around the ring (or through the hub) carry every change to every replica.
        for _ in 0..<2 {
            for i in replicas.indices {
                let a = replicas[i]
                let b = hub == nil ? replicas[(i + 1) % replicas.count] : "hub"
                let p = Process()
                p.executableURL = URL(fileURLWithPath: binDirectory + "/sync-tool")
                p.arguments = hub?.syncArguments(path(a)) ?? syncArguments(a, b)
                p.environment = childEnvironment
                p.standardOutput = FileHandle.nullDevice
                let err = Pipe()
                p.standardError = err
                try p.run()
                p.waitUntilExit()
                if p.terminationStatus != 0 {
                    let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    syncFailures.append("final sync \(a) ↔ \(b) failed (\(p.terminationStatus)): \(message)")
                }
            }
        }
    }

    /// Gives the timeline the failures added since the last call, stamped now.
    private func recordFailures() {
        guard let timeline else { return }
        for failure in syncFailures.dropFirst(failuresRecorded) { timeline.record(.failure, failure) }
        failuresRecorded = syncFailures.count
    }

    /// Gives the timeline what one `--restore-rate` event did: a backup, or a restore and what its first sync said.
    private func recordRestore(since before: RestoreFault) {
        guard let timeline else { return }
        if restoreFault.backupsTaken > before.backupsTaken { timeline.record(.backup) }
        if restoreFault.detected > before.detected { timeline.record(.restoreFound) }
        if restoreFault.unchanged > before.unchanged { timeline.record(.restoreUnchanged) }
        if restoreFault.undetected.count > before.undetected.count { timeline.record(.restoreMissed, restoreFault.undetected.last ?? "") }
    }

    func waitOrKill(_ p: Process, seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { usleep(2_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    private func nextInterval(rate: Double) -> Double {
        guard rate > 0 else { return .infinity }
        let u = Double.random(in: Double.ulpOfOne..<1, using: &random)
        return -log(u) / rate
    }

    func progress(_ line: String) {
        FileHandle.standardError.write(Data(("stress-test: " + line + "\n").utf8))
    }
}
