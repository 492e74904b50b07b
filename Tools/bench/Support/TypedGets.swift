import Concord
import SplitMix

/// Timed typed gets (`String`) of random existing keys, per get, for workloads that compare kinds of
/// stored values: in each run every kind reads the same random key numbers, in an order rotated run by
/// run, after a warm-up of a thousand gets.
enum TypedGets {
    /// Per kind, one sample per run: nanoseconds per get. `target(kind)` is the suite that kind reads
    /// and the name of its key number `i`.
    static func perGet(
        _ context: BenchContext, kinds: [String], keys: Int, reads: Int, seed: UInt64, target: (String) throws -> (suite: Suite, name: (Int) -> String)
    ) throws -> [String: [Double]] {
        var samples: [String: [Double]] = [:]
        for run in 0..<context.runs {
            var rng = SeededRandom(seed: UInt64(run) &+ seed)
            let indices = (0..<reads).map { _ in Int(rng.next() % UInt64(keys)) }
            for kind in context.rotated(kinds, run: run) {
                let (suite, name) = try target(kind)
                let names = indices.map(name)
                try readAll(suite, names.prefix(1_000)) // warm up
                let elapsed = try BenchClock.measure { try readAll(suite, names[...]) }
                samples[kind, default: []].append(Double(elapsed) / Double(reads))
            }
        }
        return samples
    }

    private static func readAll(_ suite: Suite, _ keys: ArraySlice<String>) throws {
        for key in keys { guard try suite.get(key, as: String.self) != nil else { throw BenchError("\(key) is missing") } }
    }
}
