import Concord
import Foundation

/// `sync-tool sync [user@]host1:A [user@]host2:B`: a session with `sync-tool serve` on each, the
/// batches relayed through this process (which holds no replica).
struct RelaySyncCommand {
    let a: RemoteAddress
    let b: RemoteAddress
    let options: RemoteOptions
    let selection: SyncSelection
    let dryRun, json: Bool

    func run(_ io: CommandIO) throws -> ExitCode {
        do {
            let first = try RemoteConnection.open(a, options: options, suites: selection)
            defer { first.close() }
            let second = try RemoteConnection.open(b, options: options, suites: selection)
            defer { second.close() }
            let relay = try SyncRelay(a: first.channel, b: second.channel, selection: selection, dryRun: dryRun)
            let report = try relay.round()
            let text = SyncReportText(report, peer: .relay(a: a.description, b: b.description))
            if json {
                io.out(text.json())
            } else {
                io.out(
                    "\(dryRun ? "dry run: " : "")sync \(a) (\(relay.helloA.replica)) <-> \(b) (\(relay.helloB.replica)), \(relay.selection), relayed through this machine"
                )
                for line in text.lines + [text.status] { io.out(line) }
            }
            return dryRun && !report.isInSync ? .pending : .ok
        }
    }
}
