import Foundation

/// `--timeline`: what happened when. Counts the operations the workers log, by kind, in buckets of
/// `bucketSeconds` (by tailing their logs while they run, so the log format stays as the checks read
/// it), and stamps kills, syncs, backups, restores and failures with the time since the run started.
///
/// The logs are read about once a bucket, but the run's loop can be busy longer (a restore waits for
/// two syncs): the lines one read finds are spread evenly over the time since the read before, so a
/// busy loop shows as the rate it was, not as a gap and then a spike.
final class TimelineRecorder {
    /// Something that happened at one moment of the run.
    struct Event {
        enum Kind: String {
            case workerKilled = "worker killed"
            case syncKilled = "sync killed"
            case serveKilled = "far serve killed"
            case syncDone = "sync"
            case syncFailed = "sync failed"
            case backup = "backup"
            case restoreFound = "restore found by the first sync"
            case restoreUnchanged = "restore with nothing to find"
            case restoreMissed = "restore the first sync did not find"
            case workerFailed = "worker failed"
            case failure = "failure"
            /// A broken invariant the checks placed in time: a lost write, a doubly held choice.
            case invariant = "broken invariant"

            /// Whether this event is a failure of the run (drawn in red, with its time).
            var isFailure: Bool {
                self == .syncFailed || self == .restoreMissed || self == .workerFailed || self == .failure || self == .invariant
            }
        }

        let seconds: Double
        let kind: Kind
        let detail: String
    }

    /// The operation kinds drawn, named as `--mix` names them.
    static let kinds: [OperationKind] = [.set, .delete, .incr, .claim, .reset]

    let bucketSeconds: Double
    private var started: UInt64
    /// The wall clock at `started`, in milliseconds since 1970: versions carry wall-clock time.
    private var startedWall: Double
    /// Operations of each kind per bucket (fractional where one read's lines were spread over several).
    private(set) var buckets: [[OperationKind: Double]] = []
    private(set) var events: [Event] = []
    /// When the workers were told to stop, and when the final sync round and checks ended.
    private(set) var stopSeconds: Double?
    private(set) var endSeconds: Double?
    private var offsets: [String: UInt64] = [:]
    private var nextSample = 0.0
    private var lastSample = 0.0

    init(bucketSeconds: Double = 0.25) {
        self.bucketSeconds = bucketSeconds
        started = DispatchTime.now().uptimeNanoseconds
        startedWall = Date().timeIntervalSince1970 * 1000
    }

    /// Starts the clock again: time 0 is when the workers have been started (after any hub or sshd
    /// the run set up first), as the summary's seconds count.
    func begin() {
        started = DispatchTime.now().uptimeNanoseconds
        startedWall = Date().timeIntervalSince1970 * 1000
        buckets = []
        events = []
        offsets = [:]
        nextSample = 0
        lastSample = 0
    }

    /// Seconds since the run started.
    var now: Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }

    func record(_ kind: Event.Kind, _ detail: String = "") {
        events.append(Event(seconds: now, kind: kind, detail: detail))
    }

    /// Records something that happened at a wall-clock moment (a version's milliseconds).
    func record(_ kind: Event.Kind, _ detail: String, atWallMilliseconds milliseconds: UInt64) {
        events.append(Event(seconds: max(0, (Double(milliseconds) - startedWall) / 1000), kind: kind, detail: detail))
    }

    /// Reads what the logs gained since the last look, at most once a bucket (unless `force`), and
    /// counts each whole new line in the bucket of this moment.
    func sample(logs: [String], force: Bool = false) {
        let t = now
        guard force || t >= nextSample else { return }
        nextSample = t + bucketSeconds
        var counts: [OperationKind: Int] = [:]
        for path in logs {
            guard let handle = FileHandle(forReadingAtPath: path) else { continue }
            defer { try? handle.close() }
            let offset = offsets[path] ?? 0
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else { continue }
            // Only whole lines: a line still being written is counted at the next look.
            guard let lastNewline = data.lastIndex(of: UInt8(ascii: "\n")) else { continue }
            let whole = data[data.startIndex...lastNewline]
            offsets[path] = offset + UInt64(whole.count)
            for line in whole.split(separator: UInt8(ascii: "\n")) {
                let word = String(decoding: line.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
                if let kind = Self.kind(ofLogWord: word) { counts[kind, default: 0] += 1 }
            }
        }
        spread(counts, from: lastSample, to: t)
        lastSample = t
    }

    /// Adds `counts` to the buckets between `start` and `end`, each its share of the time.
    private func spread(_ counts: [OperationKind: Int], from start: Double, to end: Double) {
        let last = Int(end / bucketSeconds)
        while buckets.count <= last { buckets.append([:]) }
        guard !counts.isEmpty else { return }
        guard end > start else {
            for (kind, n) in counts { buckets[last][kind, default: 0] += Double(n) }
            return
        }
        for index in Int(start / bucketSeconds)...last {
            let overlap = min(end, Double(index + 1) * bucketSeconds) - max(start, Double(index) * bucketSeconds)
            guard overlap > 0 else { continue }
            for (kind, n) in counts { buckets[index][kind, default: 0] += Double(n) * overlap / (end - start) }
        }
    }

    func markStop() { stopSeconds = now }
    func markEnd() { endSeconds = now }

    /// The operation a log line's first word stands for; `nil` for the second half of one (a
    /// release after its claim, the global increment after an increment).
    static func kind(ofLogWord word: String) -> OperationKind? {
        switch LoggedOperation.Kind(rawValue: word) {
        case .set, .setLocal, .setExpiring: .set
        case .del: .delete
        case .incr: .incr
        case .reset: .reset
        case .claim, .claimLost: .claim
        case .incrGlobal, .release, nil: nil
        }
    }
}
