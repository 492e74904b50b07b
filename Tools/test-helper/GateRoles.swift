import Concord
import Foundation

/// Roles for the tests of the gate every record from outside passes. Returns nil for a role it does not know.
///
/// - `hostile-serve MODE serve DIR [OPTIONS…]`: stands in for `sync-tool serve` at the far end of a
///   client's ssh connection (run through `--remote-command`), exchanges verdicts on the cursors as an
///   honest server does, and answers the client's round with a batch no honest server sends, then waits for the client's answer. MODE: `max-hlc` (a record
///   whose hlc is 0xFFFF_FFFF_FFFF_FFFF), `nul-key` (a key holding U+0000), `past-announced` (an empty
///   batch whose range ends at 2^62, past the last seq its hello announced). Frames go to standard
///   output; a line for the test to standard error.
enum GateRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "hostile-serve": return try hostileServe(mode: args[0])
        default: return nil
        }
    }

    static func hostileServe(mode: String) throws -> Int32 {
        let channel = SyncChannel(input: 0, output: 1, timeout: 30)
        guard case .hello(let client)? = try channel.receive() else { return 3 }
        let me = ReplicaID(bytes: (0..<16).map { UInt8($0 + 0xA0) })!
        var hello = SyncHello(replica: me, selection: client.selection, knowledge: .none, lastSeq: mode == "past-announced" ? 0 : 1)
        hello.version = client.version // whatever the client speaks: the test is about what it then accepts
        hello.milliseconds = HybridClock.wallMilliseconds()
        try channel.send(.hello(hello))
        // Verdicts on each other's cursors: this side claims nothing about the client, and finds nothing to check.
        try channel.send(.verdict(SyncVerdict(ContactCheck())))
        guard case .verdict? = try channel.receive() else { return 3 }
        // The client's part of the round: acknowledge its batches until its end.
        while let frame = try channel.receive() {
            if case .batch(let batch) = frame {
                var report = ApplyReport(source: batch.source, target: me)
                report.entries = batch.entries.count
                try channel.send(.ack(SyncAck(toSeq: batch.toSeq, report: report)))
            }
            if case .end = frame { break }
        }
        let now = HybridClock.wallMilliseconds() << 16
        let entries: [RemoteEntry]
        switch mode {
        case "max-hlc":
            entries = [
                RemoteEntry(
                    seq: 1, suite: "prefs", key: "theme", record: try Record(version: Version(hlc: .max, replica: me), value: .string("pinned forever")))
            ]
        case "nul-key":
            entries = [RemoteEntry(seq: 1, suite: "prefs", key: "a\u{0}b", record: try Record(version: Version(hlc: now, replica: me), value: .string("x")))]
        default:
            entries = []
        }
        let batch = RemoteBatch(
            source: me, selection: hello.selection, fromSeq: 0, toSeq: mode == "past-announced" ? 1 << 62 : 1, entries: entries, knowledge: .none)
        try channel.send(.batch(batch))
        let answer = try? channel.receive()
        FileHandle.standardError.write(Data("hostile-serve \(mode): the client answered \(answer.map { "\($0)" } ?? "nothing")\n".utf8))
        return 0
    }
}
