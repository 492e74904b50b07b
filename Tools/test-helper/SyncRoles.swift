import Concord
import Foundation
import LMDB

/// Roles for the sync tests. Returns nil for a role it does not know.
///
/// - `pull SRC DST`: merges SRC's changes into DST (one direction), prints `pulled N`.
/// - `pull-then-hang SRC DST`: pulls, prints `pulled N`, then sleeps (to be killed): a sync killed between its directions.
/// - `pull-failing-commit SRC DST`: pulls with the commit failing (ENOSPC injected); prints `refused` when the error surfaced.
/// - `sync-once DIR_A DIR_B`: prints `started`, syncs both ways (as `sync-tool sync` does), prints `synced` (to be killed at any moment).
/// - `sync-loop DIR_A DIR_B ROUNDS`: syncs in-process ROUNDS times, printing `synced I` after each.
enum SyncRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "pull", "pull-then-hang":
            let (source, target) = (try Store(path: args[0]), try Store(path: args[1]))
            let report = try Synchronizer().pull(from: source, into: target)
            say("pulled \(report.recordsChanged)")
            if role == "pull-then-hang" { sleep(1000) }
            return 0
        case "pull-failing-commit":
            let (source, target) = (try Store(path: args[0]), try Store(path: args[1]))
            FaultInjection.inject(.commit, code: 28, times: nil)
            defer { FaultInjection.clear() }
            do { try Synchronizer().pull(from: source, into: target) } catch {
                say("refused")
                return 0
            }
            say("applied")
            return 1
        case "sync-once":
            say("started")
            try Synchronizer().sync(try Store(path: args[0]), try Store(path: args[1]))
            say("synced")
            return 0
        case "sync-loop":
            let (a, b) = (try Store(path: args[0]), try Store(path: args[1]))
            for i in 0..<Int(args[2])! {
                try Synchronizer().sync(a, b)
                say("synced \(i)")
            }
            return 0
        default:
            return nil
        }
    }
}
