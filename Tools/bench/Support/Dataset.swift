import SplitMix

/// The keys and values every system stores: key `i` is `key-0000042`-style (a small string,
/// so building it allocates nothing); even keys hold a String, odd keys an Int.
enum Dataset {
    static func key(_ i: Int) -> String {
        let digits = String(i)
        return "key-" + String(repeating: "0", count: Swift.max(0, 7 - digits.count)) + digits
    }

    /// The value of key `i` as populated; `generation` > 0 gives the values of later rewrites.
    static func value(_ i: Int, generation: Int = 0) -> BenchValue {
        i % 2 == 0 ? .string("value-\(i)-g\(generation)-settings") : .int(i &* 7 &+ generation)
    }

    /// `count` random keys of a store of `size` keys, holding Strings (`odd: false`) or Ints (`odd: true`).
    static func randomKeys(count: Int, size: Int, odd: Bool, seed: UInt64) -> [String] {
        var rng = SeededRandom(seed: seed)
        let half = Swift.max(1, size / 2)
        return (0..<count).map { _ in
            let i = Int(rng.next() % UInt64(half)) * 2 + (odd ? 1 : 0)
            return key(Swift.min(i, size - 1))
        }
    }
}

/// A value as the benchmark writes it: the two types the typed-read workload reads back.
enum BenchValue: Sendable, Equatable {
    case string(String)
    case int(Int)
}
