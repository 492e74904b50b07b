import Concord
import Foundation

/// Roles for the lease tests. Returns nil for a role it does not know.
///
/// - `lease-holder DIR SUITE KEY CHOICE LEASE_MS RENEW_MS RENEWALS`: claims CHOICE (if nothing is
///   current) with a lease of LEASE_MS, printing `claimed` or `refused CURRENT`; watches for its loss
///   (printing `lost CHOICE`); renews every RENEW_MS, RENEWALS times (printing `renewed N`, or
///   `renew refused` when it no longer holds it), then prints `stalled` and stays alive, silent,
///   until killed — a slow holder.
/// - `lease-claim DIR SUITE KEY CHOICE LEASE_MS`: claims once; prints `claimed` or `refused CURRENT`.
enum LeaseRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "lease-holder":
            let suite = try Store(path: args[0]).suite(args[1])
            let focus = Exclusive<String>(args[2], in: suite, lease: .milliseconds(Int(args[4])!))
            let watch = try focus.observeLoss { lease in say("lost \(lease.choice)") }
            defer { watch.cancel() }
            switch try focus.attemptClaim(args[3], ifCurrent: nil) {
            case .claimed: say("claimed")
            case .refused(let current):
                say("refused \(current ?? "-")")
                return 0
            }
            for n in 0..<Int(args[6])! {
                usleep(UInt32(Int(args[5])! * 1000))
                if try focus.renew() != nil { say("renewed \(n + 1)") } else { say("renew refused") }
            }
            say("stalled")
            sleep(600)
            return 0
        case "lease-claim":
            let suite = try Store(path: args[0]).suite(args[1])
            let focus = Exclusive<String>(args[2], in: suite, lease: .milliseconds(Int(args[4])!))
            switch try focus.attemptClaim(args[3], ifCurrent: nil) {
            case .claimed: say("claimed")
            case .refused(let current): say("refused \(current ?? "-")")
            }
            return 0
        default:
            return nil
        }
    }
}
