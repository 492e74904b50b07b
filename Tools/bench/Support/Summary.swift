/// The spread of one figure over repeated runs: median, min and max of the samples.
struct Summary: Codable, Sendable {
    let median: Double
    let min: Double
    let max: Double
    let runs: Int
    let samples: [Double]

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "a summary needs at least one sample")
        let sorted = samples.sorted()
        let mid = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
        runs = samples.count
        self.samples = samples
    }
}

/// Nearest-rank percentiles of a set of measurements.
struct Percentiles {
    private let sorted: [Double]

    init(_ values: [Double]) { sorted = values.sorted() }

    var isEmpty: Bool { sorted.isEmpty }

    /// The smallest value at or above which `p` percent of the values lie below (nearest rank).
    func value(at p: Double) -> Double {
        precondition(!sorted.isEmpty, "percentile of no values")
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
}
