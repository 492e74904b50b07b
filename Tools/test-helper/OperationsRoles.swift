import Concord
import Foundation
import LMDB

#if canImport(Glibc)
    import Glibc
#endif

/// Roles for the operations tests (backups). Returns nil for a role it does not know.
///
/// Fault injection is global to a process, so the faulted backup happens here, never in the test runner.
///
/// - `backup-fault DIR DEST ERROR`: arms ERROR (`ENOSPC` or `EIO`) in LMDB's copy, backs DIR up to DEST,
///   and prints `refused CODE MESSAGE` (or `backed-up` if the fault did not reach it); then, without the
///   fault, prints `check ok` or `check damaged` for DIR.
enum OperationsRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "backup-fault": return try backupFault(args)
        default: return nil
        }
    }

    static func backupFault(_ args: [String]) throws -> Int32 {
        let codes: [String: Int32] = ["ENOSPC": ENOSPC, "EIO": EIO]
        guard args.count == 3, let code = codes[args[2]] else {
            say("usage: backup-fault DIR DEST ENOSPC|EIO")
            return 2
        }
        let store = try Store(path: args[0])
        FaultInjection.inject(.copyEnvironment, code: code, times: 1)
        do {
            try store.backup(to: args[1])
            say("backed-up")
        } catch let error as ConcordError {
            if error.code == .storage, let code = error.systemCode { say("refused \(code) \(error)") } else { say("refused store \(error)") }
        }
        FaultInjection.clear()
        say(try store.integrityReport().isSound ? "check ok" : "check damaged")
        return 0
    }
}
