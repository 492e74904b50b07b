import Foundation

/// The command line of `stress-test`, parsed by hand (no outside packages), with generated help.
struct StressOptions {
    var replicas = 3
    var processes = 3
    var seconds = 20.0
    var seed: UInt64 = 1
    var killRate = 0.0
    var restoreRate = 0.0
    var json = false
    var mix = OperationMix.standard
    var keep = false
    var directory: String?
    var hub = false
    /// `--encrypted`: the data suite is encrypted with a key made for the run.
    var encrypted = false
    /// How syncs between directories reach the second replica: "local" (both opened by one process) or "ssh".
    var transport = "local"
    /// `--timeline FILE.svg`: where to draw the run over time.
    var timeline: String?

    static let help = """
        Usage: stress-test [--replicas N] [--processes N] [--seconds S] [--seed N] [--kill-rate PER_SECOND] [--restore-rate PER_SECOND] [--json]
                           [--mix KIND=WEIGHT,...] [--dir PATH] [--keep] [--hub] [--transport local|ssh] [--encrypted]
                           [--timeline FILE.svg]

        Runs a realistic world on this machine: several replica directories (app-group, watch, device, …), each
        opened by several real processes at once (app, extension, widget roles) doing a mix of sets, deletes,
        atomic increments, resets and exclusive-choice claims, while syncs run between replicas — optionally
        with SIGKILLs of random workers and syncs, which are restarted. One set in eight writes a device-local
        key (its values must never reach another replica), one in eight a value that expires within two
        seconds (it must read as absent everywhere after). Every worker logs each operation it saw
        acknowledged, outside the store. At the end: a full sync round, then the checks.

        Options:
          --replicas N           replica directories (default 3)
          --processes N          worker processes per replica (default 3)
          --seconds S            how long the workers run (default 20)
          --seed N               seed for every choice the run makes (default 1)
          --kill-rate R          SIGKILLs per second of random workers and syncs (default 0)
          --restore-rate R       replicas restored from an earlier backup per second (default 0): each event
                                 backs a replica up, or restores the one backed up before in place of it
                                 (after a sync that puts what it acknowledged elsewhere); the first sync
                                 after a restore must say so, and nothing may be lost
          --mix LIST             operation weights, e.g. set=50,delete=10,incr=20,reset=1,claim=10
          --dir PATH             where to put the replicas (default: a new temporary directory)
          --keep                 keep the replica directories afterwards
          --hub                  sync every replica through one account on a PostgreSQL hub this run starts
                                 (needs Debian's postgresql package), instead of between directories
          --transport ssh        run every sync's second replica through a local sshd this run starts
                                 ('sync-tool sync A user@127.0.0.1:B'); kills then also hit the far 'serve'
          --encrypted            declare the data suite encrypted in every replica, with a key made for this
                                 run and given to every process (workers, syncs, the checks) in a key file
                                 (CONCORD_KEY_FILE); its sets are all plain (an encrypted suite holds no
                                 device-local keys and no expiring values)
          --timeline FILE.svg    also draw the run as an SVG chart: operations per second of each kind in
                                 250 ms buckets, syncs, kills, backups and restores as marks at their
                                 moment, failures as red lines, and the invariants' verdict at the end
          --json                 print the summary as one JSON object
          -h, --help             show this help

        Exit status: 0 when every invariant held, 1 when one failed, 2 on a usage error, 3 when the
        --timeline file cannot be written, 4 when the run itself could not be carried out.
        """

    struct UsageError: Error, CustomStringConvertible { let description: String }

    static func parse(_ arguments: [String]) throws -> StressOptions {
        var o = StressOptions()
        var i = 0
        func value(_ name: String) throws -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(description: "\(name) needs a value") }
            return arguments[i]
        }
        func number<T: LosslessStringConvertible & Comparable>(_ name: String, min: T) throws -> T {
            let text = try value(name)
            guard let v = T(text), v >= min else { throw UsageError(description: "\(name) must be a number ≥ \(min), not '\(text)'") }
            return v
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--replicas": o.replicas = try number("--replicas", min: 1)
            case "--processes": o.processes = try number("--processes", min: 1)
            case "--seconds": o.seconds = try number("--seconds", min: 0.1)
            case "--seed": o.seed = try number("--seed", min: 0)
            case "--kill-rate": o.killRate = try number("--kill-rate", min: 0.0)
            case "--restore-rate": o.restoreRate = try number("--restore-rate", min: 0.0)
            case "--mix": o.mix = try OperationMix.parse(try value("--mix"))
            case "--dir": o.directory = try value("--dir")
            case "--keep": o.keep = true
            case "--json": o.json = true
            case "--hub": o.hub = true
            case "--encrypted": o.encrypted = true
            case "--timeline":
                let file = try value("--timeline")
                guard !file.isEmpty else { throw UsageError(description: "--timeline needs a file name") }
                o.timeline = file
            case "--transport":
                o.transport = try value("--transport")
                guard ["local", "ssh"].contains(o.transport) else { throw UsageError(description: "--transport is local or ssh, not '\(o.transport)'") }
            default: throw UsageError(description: "unknown argument '\(arguments[i])' (see stress-test --help)")
            }
            i += 1
        }
        if o.hub && o.transport == "ssh" { throw UsageError(description: "--hub and --transport ssh do not go together") }
        return o
    }
}

/// The kinds of operation workers perform, and their relative weights.
enum OperationKind: String, CaseIterable, Codable {
    case set, delete, incr, reset, claim
}

struct OperationMix: Equatable {
    var weights: [OperationKind: Int]

    static let standard = OperationMix(weights: [.set: 50, .delete: 10, .incr: 20, .reset: 1, .claim: 10])

    static func parse(_ text: String) throws -> OperationMix {
        var weights: [OperationKind: Int] = [:]
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=")
            guard pair.count == 2, let kind = OperationKind(rawValue: String(pair[0])), let w = Int(pair[1]), w >= 0 else {
                throw StressOptions.UsageError(
                    description:
                        "--mix takes KIND=WEIGHT pairs with kinds \(OperationKind.allCases.map(\.rawValue).joined(separator: ", ")); '\(part)' is not one")
            }
            weights[kind] = w
        }
        guard weights.values.reduce(0, +) > 0 else { throw StressOptions.UsageError(description: "--mix needs a positive weight") }
        return OperationMix(weights: weights)
    }

    /// `kind=weight,…` (passed on to workers).
    var argument: String { OperationKind.allCases.compactMap { k in weights[k].map { "\(k.rawValue)=\($0)" } }.joined(separator: ",") }

    func pick<G: RandomNumberGenerator>(using g: inout G) -> OperationKind {
        let total = weights.values.reduce(0, +)
        var r = Int.random(in: 0..<total, using: &g)
        for kind in OperationKind.allCases {
            let w = weights[kind] ?? 0
            if r < w { return kind }
            r -= w
        }
        return .set
    }
}
