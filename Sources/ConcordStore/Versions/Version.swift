/// The version every stored record carries: a hybrid-logical-clock reading and the replica that wrote it.
///
/// Versions are totally ordered, by `hlc` and then by the replica's bytes; the greater version wins a merge.
/// `hlc`'s high 48 bits are milliseconds since the Unix epoch, its low 16 bits a logical counter.
///
/// ```swift
/// let v = try suite.record(forKey: "theme")?.version
/// print(v?.time, v?.replica)
/// ```
public struct Version: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The hybrid logical clock reading: milliseconds since 1970 in the high 48 bits, a counter in the low 16.
    public let hlc: UInt64
    /// The replica that wrote the record; it orders versions with equal clocks.
    public let replica: ReplicaID

    /// A version of `hlc` on `replica`.
    public init(hlc: UInt64, replica: ReplicaID) {
        self.hlc = hlc
        self.replica = replica
    }

    /// The wall-clock part: the time since 1970-01-01 00:00:00 UTC, in whole milliseconds.
    ///
    /// <!-- assume: let version = Version(hlc: 1_800_000_000_000 << 16, replica: .zero) -->
    /// ```swift
    /// let written = Date(timeIntervalSince1970: Double(version.time.components.seconds))
    /// ```
    public var time: Duration { .milliseconds(milliseconds) }
    /// ``time`` as the clock counts it: milliseconds since 1970.
    package var milliseconds: UInt64 { hlc >> 16 }
    /// The logical counter part.
    public var counter: UInt16 { UInt16(truncatingIfNeeded: hlc) }

    public static func < (a: Version, b: Version) -> Bool {
        a.hlc != b.hlc ? a.hlc < b.hlc : a.replica < b.replica
    }

    /// `hlc` in hex, then the replica: `0190f3a1c2d30004@3f2a…`.
    public var description: String { String(hlc, radix: 16).leftPadded(16) + "@" + replica.description }
}
