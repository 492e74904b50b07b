import Concord
import Foundation
import ScratchSSH
import Synchronization

/// Workload 14: sync with a replica over ssh (a scratch sshd on loopback, `sync-tool serve` on the
/// far side): the initial sync of a store into an empty remote replica beside copying the same store
/// directory with `rsync -e ssh` over the same server (what a user would otherwise reach for) and
/// beside a local sync; and live propagation over ssh (LiveSync with the remote) beside live sync of
/// two local directories, one change at a time, p50/p99.
enum RemoteSyncWorkload: Workload {
    static let name = "remote"
    static let title = "14 remote: sync over ssh"
    static let summary = "initial sync over ssh beside rsync -e ssh and local sync; live propagation over ssh p50/p99 beside local live sync"

    static let sshName = "Concord over ssh"
    static let rsyncName = "rsync -e ssh (copy the store)"
    static let localName = "Concord local sync"

    static func keys(_ context: BenchContext) -> Int { context.pick(quick: 10_000, full: 100_000) }
    static func liveChanges(_ context: BenchContext) -> Int { context.pick(quick: 100, full: 1_000) }

    /// `bench --child fill-store DIR COUNT`: the workload's source store, made by hand to profile a sync of it.
    static func runChild(role: String, arguments: [String]) throws -> Int32? {
        guard role == "fill-store" else { return nil }
        let usage = "fill-store DIR COUNT"
        try HubSyncWorkload.fill(try Store(path: try ChildRoles.argument(arguments, 0, usage)), count: try ChildRoles.integer(arguments, 1, usage))
        return 0
    }

    static func run(_ context: BenchContext) throws -> [Figure] {
        let n = keys(context)
        let syncTool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path + "/sync-tool"
        let ssh: ScratchSSH
        do {
            guard FileManager.default.isExecutableFile(atPath: syncTool) else { throw BenchError("no sync-tool beside bench (build the sync-tool product)") }
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/rsync") else { throw BenchError("rsync is not installed") }
            ssh = try ScratchSSH()
        } catch {
            return [
                .skipped(
                    workload: name, scenario: "initial sync of \(grouped(n)) keys", subject: sshName, metric: "time", unit: .microseconds, because: "\(error)")
            ]
        }
        defer { ssh.destroy() }
        let runs = context.pick(quick: 1, full: 3)

        // 1. Initial sync of n keys into an empty replica: over ssh, rsync of the store over ssh, local.
        context.progress("\(name): initial sync of \(grouped(n)) keys over ssh, rsync and locally, \(runs) runs")
        let source = try Store(path: try context.scratch.makeDirectory("remote-source"))
        try HubSyncWorkload.fill(source, count: n)
        var overSSH: [Double] = []
        var overRsync: [Double] = []
        var local: [Double] = []
        for run in 0..<runs {
            let order = run % 3
            for which in [0, 1, 2][order...] + [0, 1, 2][..<order] {
                let target = try context.scratch.makeDirectory("remote-target")
                defer { context.scratch.remove(target) }
                switch which {
                case 0:
                    try? FileManager.default.removeItem(atPath: target)
                    let t = try BenchClock.measure {
                        try Self.run(syncTool, ["sync", source.directory, ssh.address(target), "--create", "--rsh", ssh.rsh, "--remote-command", syncTool])
                    }
                    guard try Store(path: target).suite("app").keys().count == n else { throw BenchError("the remote replica lacks keys") }
                    overSSH.append(Double(t) / 1e3)
                case 1:
                    let t = try BenchClock.measure {
                        try Self.run("/usr/bin/rsync", ["-a", "--whole-file", "-e", ssh.rsh, source.directory + "/", ssh.address(target) + "/"])
                    }
                    overRsync.append(Double(t) / 1e3)
                default:
                    let copy = try Store(path: target)
                    let t = try BenchClock.measure { try Synchronizer().sync(source, copy) }
                    local.append(Double(t) / 1e3)
                }
            }
        }
        let scenario = "initial sync of \(grouped(n)) keys into an empty replica"
        var figures = [
            Figure(workload: name, scenario: scenario, subject: sshName, metric: "time", unit: .microseconds, samples: overSSH),
            Figure(workload: name, scenario: scenario, subject: rsyncName, metric: "time", unit: .microseconds, samples: overRsync),
            Figure(workload: name, scenario: scenario, subject: localName, metric: "time", unit: .microseconds, samples: local)
        ]

        // 2. Live propagation, one change at a time: over ssh, and between two local directories.
        let changes = liveChanges(context)
        context.progress("\(name): live propagation of \(grouped(changes)) changes over ssh and locally")
        var options = RemoteOptions()
        options.rsh = ssh.rsh
        options.remoteCommand = syncTool
        options.create = true
        let farDirectory = try context.scratch.makeDirectory("live-far")
        try? FileManager.default.removeItem(atPath: farDirectory)
        figures += try propagation(subject: sshName, changes: changes, context) { phone in
            (try LiveSync(store: phone, remote: ssh.address(farDirectory), options: options), farDirectory)
        }
        let watchDirectory = try context.scratch.makeDirectory("live-watch")
        _ = try Store(path: watchDirectory)
        figures += try propagation(subject: localName, changes: changes, context) { phone in
            (try LiveSync(store: phone, directory: watchDirectory), watchDirectory)
        }
        return figures
    }

    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] {
        let p50Figure = figures.find(name, liveScenario(liveChanges(context)), sshName, metric: "live p50")
        let p99Figure = figures.find(name, liveScenario(liveChanges(context)), sshName, metric: "live p99")
        let p50 = p50Figure?.summary?.median
        let p99 = p99Figure?.summary?.median
        return [
            .bound(
                "live propagation over ssh on loopback p50 under 20 ms", value: p50.map { $0 / 1000 }, limit: 20, strictly: true,
                mark: .at(p50Figure, 20_000)
            ) {
                String(format: "%.2f ms", $0)
            },
            .bound(
                "live propagation over ssh on loopback p99 under 100 ms", value: p99.map { $0 / 1000 }, limit: 100, strictly: true,
                mark: .at(p99Figure, 100_000)
            ) {
                String(format: "%.2f ms", $0)
            }
        ]
    }

    static func liveScenario(_ changes: Int) -> String { "live propagation of \(grouped(changes)) changes, one at a time" }

    /// Sets one key on a fresh local replica at a time and waits until an observer on the far
    /// replica (opened in this process) sees it.
    private static func propagation(
        subject: String, changes: Int, _ context: BenchContext,
        start: (Store) throws -> (LiveSync, String)
    ) throws -> [Figure] {
        let phone = try Store(path: try context.scratch.makeDirectory("live-phone"))
        let suite = try phone.suite("live")
        try suite.set(-1, forKey: "tick")
        let (live, farPath) = try start(phone)
        defer { live.stop() }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: farPath + "/data.mdb") && Date() < deadline { usleep(1_000) }
        let far = try Store(path: farPath)
        let seen = HubSyncWorkload.Arrivals()
        let token = try far.suite("live").changes(for: "tick").start { change in
            if case .int(let i)? = change.value { seen.record(Int(i), at: BenchClock.now()) }
        }
        defer { token.cancel() }
        while try far.suite("live").get("tick", as: Int.self) != -1 {
            guard Date() < deadline else { throw BenchError("live sync (\(subject)) did not start") }
            usleep(1_000)
        }
        var latencies: [Double] = []
        for i in 0..<changes {
            let started = BenchClock.now()
            try suite.set(i, forKey: "tick")
            let until = Date().addingTimeInterval(10)
            while seen.time(of: i) == nil {
                guard Date() < until else { throw BenchError("change \(i) did not arrive within 10 s (\(subject))") }
                usleep(50)
            }
            latencies.append(Double(seen.time(of: i)! - started) / 1e3)
        }
        let p = Percentiles(latencies)
        return [
            Figure(workload: name, scenario: liveScenario(changes), subject: subject, metric: "live p50", unit: .microseconds, samples: [p.value(at: 50)]),
            Figure(workload: name, scenario: liveScenario(changes), subject: subject, metric: "live p99", unit: .microseconds, samples: [p.value(at: 99)])
        ]
    }

    private static func run(_ path: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        p.standardError = errors
        try p.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchError("\(path) \(arguments.first ?? "") failed (exit \(p.terminationStatus)): \(said)") }
    }
}
