/// One workload of the benchmark. Adding a workload is one file holding a type that conforms
/// to this protocol, plus its line in `WorkloadRegistry.all`.
///
/// A workload runs every system in the same process and run, alternating them run by run so the
/// noise of a shared machine falls on all of them alike, and returns one figure per system and
/// metric. Work that must happen in another process (opening a store fresh, a second writer)
/// goes through hidden child roles of the bench binary itself, which the workload also handles.
protocol Workload: Sendable {
    /// The name `--only` selects, e.g. `point-read`.
    static var name: String { get }
    /// The heading the table shows, e.g. `1 typed point read`.
    static var title: String { get }
    /// One line for `--help`.
    static var summary: String { get }

    /// Measures the workload.
    static func run(_ context: BenchContext) throws -> [Figure]

    /// The goals this workload checks, from this run's figures.
    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck]

    /// Runs `role` in a child process spawned by `run`; `nil` when the role is not this workload's.
    static func runChild(role: String, arguments: [String]) throws -> Int32?
}

extension Workload {
    static func goals(_ figures: FigureBook, _ context: BenchContext) -> [GoalCheck] { [] }
    static func runChild(role: String, arguments: [String]) throws -> Int32? { nil }
}
