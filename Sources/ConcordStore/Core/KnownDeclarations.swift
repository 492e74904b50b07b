/// What the reserved suite declares for the suites a replica's write transactions looked up — each
/// suite's policy declarations (whether any key has one, its prefixes) and how it is sealed — at
/// one journal seq: every change to a record takes the next seq, so what holds at seq `S` holds for
/// every transaction that begins at `S`. A write transaction starts from what the replica core
/// published (`DeclarationCache`) when it begins at that seq, looks up the rest, forgets everything
/// when it writes the reserved suite itself, and is published when it commits. Tombstone collection
/// removes records without a seq, but only tombstones and expired values, which declare nothing.
struct KnownDeclarations: Sendable {
    /// A suite's policy declarations.
    struct Policies: Sendable {
        let suite: String
        /// Whether any key of the suite has a declaration of its own.
        let hasKeys: Bool
        /// Its prefix declarations, longest prefix first.
        let prefixes: [(prefix: String, policy: MergePolicy)]
    }

    /// How a suite is sealed (nil: in the clear), as the keyring of `keyringGeneration` read it.
    private struct Sealing: Sendable {
        let suite: String
        let sealing: SuiteSealing?
    }

    /// The most suites of each kind kept: a transaction writing more looks the others up in LMDB.
    private static let maxSuites = 64

    /// The seq the declarations hold at.
    private(set) var seq: UInt64
    /// The keyring's generation the sealings were found with (another key given since changes them).
    private var keyringGeneration: Int
    private var policies: [Policies] = []
    private var sealings: [Sealing] = []

    init(seq: UInt64, keyringGeneration: Int) {
        self.seq = seq
        self.keyringGeneration = keyringGeneration
    }

    /// What `suite` declares, if known.
    func policies(suite: String) -> Policies? { policies.first { $0.suite == suite } }

    mutating func remember(_ found: Policies) {
        if policies.count < Self.maxSuites { policies.append(found) }
    }

    /// How `suite` is sealed: nil when not known, `.some(nil)` for a suite in the clear.
    func sealing(suite: String, keyringGeneration generation: Int) -> SuiteSealing?? {
        guard generation == keyringGeneration, let known = sealings.first(where: { $0.suite == suite }) else { return nil }
        return .some(known.sealing)
    }

    mutating func remember(_ sealing: SuiteSealing?, suite: String, keyringGeneration generation: Int) {
        if generation != keyringGeneration { (sealings, keyringGeneration) = ([], generation) }
        if sealings.count < Self.maxSuites { sealings.append(Sealing(suite: suite, sealing: sealing)) }
    }

    /// Forgets every declaration (the transaction wrote the reserved suite).
    mutating func forgetAll() { (policies, sealings) = ([], []) }

    /// Moves to `seq`, which the transaction's own changes reached: what it knows holds there too.
    mutating func advance(to seq: UInt64) { self.seq = seq }
}
