import Foundation

/// One operation a worker saw acknowledged, as it logs it (outside the store) — one line each.
///
/// `set KEY VERSION_HEX REPLICA VALUE LATENCY_US`, `del KEY VERSION_HEX REPLICA LATENCY_US`,
/// `incr KEY NEWVALUE LATENCY_US`, `incr-global KEY NEWVALUE LATENCY_US`, `reset COUNT LATENCY_US`,
/// `claim KEY VERSION_HEX REPLICA UNTIL_MS LATENCY_US`, `release KEY LATENCY_US` (the claim just before
/// it was released by its holder), `claim-lost KEY LATENCY_US`; `set-local KEY VERSION_HEX REPLICA VALUE
/// LATENCY_US` (a device-local key: it never leaves the replica), `set-exp KEY VERSION_HEX REPLICA VALUE
/// EXPIRY_MS LATENCY_US` (a value that expires).
struct LoggedOperation {
    enum Kind: String {
        case set, del, incr, incrGlobal = "incr-global", reset, claim, release, claimLost = "claim-lost"
        case setLocal = "set-local", setExpiring = "set-exp"
    }
    let worker: Int
    let kind: Kind
    let fields: [String]
    let latencyMicroseconds: Double
    /// Whether this is the last operation its worker logged before it was stopped or killed: a worker
    /// killed right after committing its next operation (say, a release) leaves that one unlogged.
    var lastInLog = false
    /// For a claim: whether its holder logged releasing it right after (so it held the choice until then).
    var released = false

    /// Parses a worker's log; a line cut short by a SIGKILL (no final newline) is ignored.
    static func parse(file: String, worker: Int) -> [LoggedOperation] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()
        var operations: [LoggedOperation] = lines.compactMap { line in
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count >= 2, let kind = Kind(rawValue: parts[0]), let latency = Double(parts[parts.count - 1]) else { return nil }
            return LoggedOperation(worker: worker, kind: kind, fields: Array(parts[1..<(parts.count - 1)]), latencyMicroseconds: latency)
        }
        if !operations.isEmpty { operations[operations.count - 1].lastInLog = true }
        for i in operations.indices.dropLast() where operations[i].kind == .claim {
            operations[i].released = operations[i + 1].kind == .release && operations[i + 1].fields.first == operations[i].fields.first
        }
        return operations
    }
}

/// Appends log lines with one `write` each, so a line is either whole or (when killed mid-write) detectably cut.
final class OperationLogWriter {
    private let handle: FileHandle

    init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
    }

    func log(_ fields: [String]) {
        handle.write(Data((fields.joined(separator: " ") + "\n").utf8))
    }
}
