import Concord
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Roles for the crash tests of encrypting a suite. Returns nil for a role it does not know.
///
/// - `encrypt-stop DIR SUITE KEY_FILE CHECKPOINT`: encrypts SUITE of the store at DIR with the key in
///   KEY_FILE and, when the encryption reaches CHECKPOINT (`declared`, `halfway`, `sealed`, or
///   `committed` once it returned), prints `at CHECKPOINT` and sleeps, to be killed there. Exits 3 if
///   the encryption never got there.
enum EncryptionRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        guard role == "encrypt-stop" else { return nil }
        let points = SuiteEncryptionCheckpoint.allCases.map(\.rawValue) + ["committed"]
        guard args.count == 4, points.contains(args[3]) else {
            FileHandle.standardError.write(Data("usage: concord-test-helper encrypt-stop DIR SUITE KEY_FILE \(points.joined(separator: "|"))\n".utf8))
            return 2
        }
        let stop = args[3]
        SuiteEncryptionCheckpoint.setHookForTesting { point in
            guard point.rawValue == stop else { return }
            say("at \(stop)")
            while true { sleep(60) }
        }
        let store = try Store(path: args[0])
        let sealed = try store.suite(args[1]).encrypt(with: try EncryptionKey(contentsOfFile: args[2]))
        guard stop == "committed" else {
            say("encrypted without reaching \(stop)")
            return 3
        }
        say("at committed (\(sealed) sealed)")
        while true { sleep(60) }
    }
}
