/// A reproducible random generator (SplitMix64): the same seed gives the same numbers, so a run of
/// the stress test, the benchmark, a fuzz target or a property test can be repeated from its seed.
/// Not for anything that must be unpredictable (use `SystemRandomNumberGenerator`).
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let key = "k\(Int.random(in: 0..<1_000, using: &random))"
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose numbers follow from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
