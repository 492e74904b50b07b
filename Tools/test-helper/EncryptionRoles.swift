import Concord
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Roles for the crash tests of encrypting a suite and rotating its key. Returns nil for a role it
/// does not know.
///
/// - `encrypt-stop DIR SUITE KEY_FILE CHECKPOINT`: encrypts SUITE of the store at DIR with the key in
///   KEY_FILE and, when the encryption reaches CHECKPOINT (`declared`, `halfway`, `sealed`, or
///   `committed` once it returned), prints `at CHECKPOINT` and sleeps, to be killed there. Exits 3 if
///   the encryption never got there.
/// - `rotate-stop DIR SUITE KEY_FILE NEW_KEY_FILE CHECKPOINT`: rotates SUITE's key from the one in
///   KEY_FILE to the one in NEW_KEY_FILE, stopping at CHECKPOINT alike.
enum EncryptionRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        guard role == "encrypt-stop" || role == "rotate-stop" else { return nil }
        let points = SuiteEncryptionCheckpoint.allCases.map(\.rawValue) + ["committed"]
        let files = role == "encrypt-stop" ? "KEY_FILE" : "KEY_FILE NEW_KEY_FILE"
        let count = role == "encrypt-stop" ? 4 : 5
        guard args.count == count, points.contains(args[count - 1]) else {
            FileHandle.standardError.write(Data("usage: concord-test-helper \(role) DIR SUITE \(files) \(points.joined(separator: "|"))\n".utf8))
            return 2
        }
        let stop = args[count - 1]
        SuiteEncryptionCheckpoint.setHookForTesting { point in
            guard point.rawValue == stop else { return }
            say("at \(stop)")
            while true { sleep(60) }
        }
        let store = try Store(path: args[0])
        let suite = try store.suite(args[1])
        let key = try EncryptionKey(contentsOfFile: args[2])
        let sealed: Int
        if role == "encrypt-stop" {
            sealed = try suite.encrypt(with: key)
        } else {
            try suite.useKey(key)
            sealed = try suite.rotateKey(to: try EncryptionKey(contentsOfFile: args[3]))
        }
        guard stop == "committed" else {
            say("\(role) without reaching \(stop)")
            return 3
        }
        say("at committed (\(sealed) sealed)")
        while true { sleep(60) }
    }
}
