import LMDB

/// What a process is told when LMDB meets a damaged page of a replica and stops it (see
/// `DamageAssertion` in the LMDB layer): the replica's directory, and how to see the damage and
/// rebuild the replica from what can still be read and from its peers.
package enum StoreDamage {
    /// The advice for the damaged replica at `directory`.
    package static func advice(_ directory: String) -> String {
        "run 'sync-tool check \(directory)' to see the damage, then 'sync-tool recover \(directory) --from PEER' to rebuild the replica from what can still be read and from a peer (ReplicaRecovery.rebuild in code)"
    }

    /// Makes every damaged replica's line end with `advice` (once per process).
    static func installAdvice() { _ = installed }
    private static let installed: Void = DamageAssertion.setAdvice(advice)

    /// Makes a command-line tool end with `code` when LMDB stops it at a damaged page, after one line
    /// that starts with `prefix` (instead of LMDB's abort, which a library leaves alone).
    package static func exitInstead(code: Int32, prefix: String) { DamageAssertion.exitInstead(code: code, prefix: prefix) }
}
