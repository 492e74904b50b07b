import Concord
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Roles for the crash tests of the format upgrade. Returns nil for a role it does not know.
///
/// - `upgrade-stop DIR CHECKPOINT`: opens the store at DIR (an older format, so opening upgrades it) and,
///   when the upgrade reaches CHECKPOINT (`began`, `upgraded`, `stamped`, `committed`), prints
///   `at CHECKPOINT` and sleeps, to be killed there. Exits 3 if the upgrade never got there.
enum UpgradeRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        guard role == "upgrade-stop" else { return nil }
        guard args.count == 2, let stop = FormatUpgrade.Checkpoint(rawValue: args[1]) else {
            FileHandle.standardError.write(Data("usage: concord-test-helper upgrade-stop DIR began|upgraded|stamped|committed\n".utf8))
            return 2
        }
        FormatUpgrade.setCheckpointHookForTesting { point in
            guard point == stop else { return }
            say("at \(point.rawValue)")
            while true { sleep(60) }
        }
        _ = try Store(path: args[0])
        say("opened without reaching \(stop.rawValue)")
        return 3
    }
}
