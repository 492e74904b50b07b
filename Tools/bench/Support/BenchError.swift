/// A failure while benchmarking, with a message saying what failed and where to look.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
