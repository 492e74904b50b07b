/// How a child process ended, with its output and how long it ran.
public struct ProcessResult: Sendable, CustomStringConvertible {
    /// Its exit status, or the signal that ended it (`signaled`); -1 when it could not be reaped.
    public let status: Int32
    /// Whether a signal ended it (a crash, a kill, or the kill after a timeout).
    public let signaled: Bool
    /// Whether it outlived the wait's timeout and was killed.
    public let timedOut: Bool
    /// Its standard output.
    public let stdout: String
    /// Its standard error.
    public let stderr: String
    /// How long it ran, from its start to the end of the wait.
    public let milliseconds: Double

    /// The non-empty lines of its standard output.
    public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    /// Whether it ended on its own with exit status `code`.
    public func exited(_ code: Int32) -> Bool { !signaled && !timedOut && status == code }

    /// How it ended, after how long, and (the start of) what it printed.
    public var description: String {
        let how = timedOut ? "timed out and was killed" : signaled ? "killed by signal \(status)" : "exited \(status)"
        return "\(how) after \(Int(milliseconds)) ms; stdout: \(stdout.prefix(600)); stderr: \(stderr.prefix(600))"
    }
}
