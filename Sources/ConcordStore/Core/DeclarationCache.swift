import Synchronization

/// The declarations the last write transaction of this process knew when it committed
/// (`KnownDeclarations`), for the next one to start from.
final class DeclarationCache: Sendable {
    private let published = Mutex<KnownDeclarations?>(nil)

    init() {}

    /// What a write transaction beginning at `seq` may start from: what was published at that seq,
    /// else nothing known.
    func known(atSeq seq: UInt64, keyringGeneration: Int) -> KnownDeclarations {
        if let known = published.withLock({ $0 }), known.seq == seq { return known }
        return KnownDeclarations(seq: seq, keyringGeneration: keyringGeneration)
    }

    /// Publishes what a committed write transaction knew (kept unless a later seq was published).
    func publish(_ known: KnownDeclarations) {
        published.withLock { held in
            if held.map({ $0.seq <= known.seq }) ?? true { held = known }
        }
    }
}
