/// What a state holds, for checking a state that came from outside (`RecordGate`): its values
/// and the clocks of its parts.
extension PolicyState {
    /// Calls `body` with every value the state holds, encoded: the base's, each set member's, each
    /// max and min proposal's.
    package func forEachValue<E: Error>(_ body: ([UInt8]) throws(E) -> Void) throws(E) {
        if let value = base?.value { try body(value) }
        for member in members { try body(member.value) }
        for proposal in highs { try body(proposal.value) }
        for proposal in lows { try body(proposal.value) }
    }

    /// The greatest hlc anywhere in the state: the base's and its prior's, each counter's (and its
    /// removal's), each set replica's, each member tag's, each proposal's.
    package var greatestHLC: UInt64 {
        var greatest: UInt64 = 0
        if let base {
            greatest = base.version.hlc
            if case .base(let prior) = base.prior { greatest = max(greatest, prior.hlc) }
        }
        for c in counters { greatest = max(greatest, c.hlc, c.removedHLC) }
        for s in setSeen { greatest = max(greatest, s.hlc) }
        for m in members { for tag in m.tags { greatest = max(greatest, tag.hlc) } }
        for p in highs { greatest = max(greatest, p.hlc) }
        for p in lows { greatest = max(greatest, p.hlc) }
        return greatest
    }
}
