import Foundation

/// Maps values onto a stretch of pixels, linearly or on a log₁₀ scale, with round-numbered ticks.
package struct ChartScale {
    package let low: Double
    package let high: Double
    package let start: Double
    package let end: Double
    package let logarithmic: Bool

    /// A scale over `low...high` (both above 0 when `logarithmic`) drawn from pixel `start` to `end`.
    package init(low: Double, high: Double, start: Double, end: Double, logarithmic: Bool) {
        precondition(!logarithmic || low > 0, "a log scale needs positive bounds")
        self.low = low
        self.high = high > low ? high : low + 1
        self.start = start
        self.end = end
        self.logarithmic = logarithmic
    }

    /// The pixel of `value`, clamped to the scale's stretch.
    package func position(_ value: Double) -> Double {
        let v = Swift.min(Swift.max(value, low), high)
        let fraction = logarithmic ? (log10(v) - log10(low)) / (log10(high) - log10(low)) : (v - low) / (high - low)
        return start + fraction * (end - start)
    }

    /// Round values inside the scale: 1, 2, 5 × 10ⁿ on a log scale (powers of ten only when those
    /// would fall closer than `spacing` pixels); steps of 1, 2 or 5 × 10ⁿ giving at most `count`
    /// ticks on a linear one.
    package func ticks(count: Int = 8, spacing: Double = 34) -> [Double] {
        if logarithmic {
            let decadePixels = abs(end - start) / (log10(high) - log10(low))
            var ticks: [Double] = []
            var decade = pow(10, floor(log10(low)))
            while decade <= high * 1.0001 {
                for m in [1.0, 2.0, 5.0] {
                    let t = m * decade
                    if t >= low * 0.9999 && t <= high * 1.0001 { ticks.append(t) }
                }
                decade *= 10
            }
            // Crowded (a wide spread): keep the powers of ten only, and every other one when even they crowd.
            if decadePixels * log10(2) < spacing {
                ticks = ticks.filter { abs(log10($0) - log10($0).rounded()) < 1e-9 }
                if decadePixels < spacing { ticks = ticks.filter { Int(log10($0).rounded()) % 2 == 0 } }
            }
            return ticks
        }
        let step = Self.niceStep((high - low) / Double(Swift.max(count - 1, 1)))
        var t = (low / step).rounded(.up) * step
        var ticks: [Double] = []
        while t <= high + step * 1e-9 {
            ticks.append(t)
            t += step
        }
        return ticks
    }

    /// The smallest of 1, 2, 5 × 10ⁿ at least `raw`.
    package static func niceStep(_ raw: Double) -> Double {
        guard raw > 0 else { return 1 }
        let magnitude = pow(10, floor(log10(raw)))
        for m in [1.0, 2.0, 5.0, 10.0] where m * magnitude >= raw * 0.9999 { return m * magnitude }
        return 10 * magnitude
    }
}
