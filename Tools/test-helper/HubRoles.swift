import Concord
import ConcordHub
import Foundation
import SplitMix

/// Roles for the hub tests. Returns nil for a role it does not know.
///
/// - `hub-random DIR URL SEED STEPS [KEY_FILE]`: random sets, deletes, resets and increments on DIR,
///   syncing through the hub at random; prints `W SUITE KEY HEX` (the record each write left, encoded,
///   in the clear) and `done` at the end. With KEY_FILE, suite s0 is declared encrypted with that key
///   before the first write (the declaration's record is printed too), and gets sets where the others get increments (its keys are lww).
/// - `hub-write-and-sync DIR URL COUNT`: sets COUNT keys (named after DIR's last component) in one write, prints `written`, then syncs
///   through the hub and prints `synced` (to be killed, or to meet a stopped server: then exit 5).
/// - `hub-sync DIR URL [PAGE]`: one sync (pages of PAGE rows); prints `synced PUSHED PULLED`.
enum HubRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "hub-random":
            let suiteKey = args.count > 4 ? try EncryptionKey(contentsOfFile: args[4]) : nil
            var options = Store.Options()
            if let suiteKey { options.suiteKeys["s0"] = suiteKey }
            let store = try Store(path: args[0], options: options)
            if let suiteKey {
                try store.suite("s0").encrypt(with: suiteKey)
                try report(try store.suite(ReservedSuite.name), SealDeclaration.reservedKey(suite: "s0"))
            }
            var g = SeededRandom(seed: UInt64(args[2])!)
            let suites = ["s0", "s1"]
            for _ in 0..<Int(args[3])! {
                let suite = try store.suite(suites[Int.random(in: 0..<2, using: &g)])
                let key = "k\(Int.random(in: 0..<6, using: &g))"
                switch Int.random(in: 0..<100, using: &g) {
                case 0..<40:
                    try suite.set("v\(Int.random(in: 0..<1000, using: &g))", forKey: key)
                    try report(suite, key)
                case 40..<55:
                    try suite.remove(key)
                    try report(suite, key)
                case 55..<60:
                    try suite.reset()
                    for (k, _) in try suite.records() { try report(suite, k) }
                case 60..<75 where suiteKey != nil && suite.name == "s0":
                    try suite.set(Int.random(in: 0..<1000, using: &g), forKey: "n\(key)")
                    try report(suite, "n\(key)")
                case 60..<75:
                    do { try suite.increment("n\(key)") } catch let error as ConcordError where error.code == .typeMismatch {
                        try suite.set(1, forKey: "n\(key)")
                    }
                    try report(suite, "n\(key)")
                default:
                    try sync(store, args[1])
                }
            }
            try sync(store, args[1])
            say("done")
            return 0
        case "hub-write-and-sync":
            let store = try Store(path: args[0])
            let count = Int(args[2])!
            let prefix = URL(fileURLWithPath: args[0]).lastPathComponent
            try store.suite("bulk").batch { b in for i in 0..<count { try b.set("value \(i)", forKey: "\(prefix)-\(i)") } }
            say("written")
            do { try sync(store, args[1]) } catch let error as ConcordError where error.code == .unreachable {
                say("unreachable")
                return 5
            }
            say("synced")
            return 0
        case "hub-sync":
            let store = try Store(path: args[0])
            let report = try HubSynchronizer(pageSize: args.count > 2 ? Int(args[2])! : 1000).sync(store, try Hub(args[1]))
            say("synced \(report.aToB.newEntries) \(report.bToA.recordsChanged)")
            return 0
        default:
            return nil
        }
    }

    private static func sync(_ store: Store, _ url: String) throws {
        try HubSynchronizer(pageSize: 7).sync(store, try Hub(url))
    }

    private static func report(_ suite: Suite, _ key: String) throws {
        guard let record = try suite.record(forKey: key) else { return }
        say("W \(suite.name) \(key) \(record.encoded.map { String(format: "%02x", $0) }.joined())")
    }
}
