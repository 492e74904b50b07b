import Foundation

/// Who holds an exclusive choice, and until when: what ``Exclusive`` stores under its key.
///
/// A lease names its holder — the replica, a random token per process, the process's pid and start
/// time — and, when the choice was given a lease duration, when it expires. It no longer counts
/// once it has expired, or, on the replica that granted it, once its holder's process is gone.
///
/// ```swift
/// if let lease = focus.currentLease {
///     print(lease.choice, lease.isHeldByThisProcess, lease.expires as Any)
/// }
/// ```
public struct Lease<Choice: StorableValue & Hashable>: Hashable, Sendable, StorableValue {
    /// What is chosen.
    public let choice: Choice
    /// Who holds it; nil for a choice stored without a holder (with `Suite.set`): held until it is
    /// moved or released.
    package let holder: LeaseHolder?
    /// When it expires (milliseconds since 1970); nil: it never does (its holder may still die).
    package let expiresMilliseconds: UInt64?
    /// The version of the write that granted it, when known (a claim, a renewal, ``Exclusive/currentLease``).
    public internal(set) var version: Version?

    /// When it expires; nil: it never does (its holder may still die).
    public var expires: Date? { expiresMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) } }

    /// The pid of the holding process on its replica's machine; nil for a choice stored without a holder.
    public var holderPID: Int32? { holder?.pid }

    /// Whether this process holds it.
    public var isHeldByThisProcess: Bool { holder?.isThisProcess ?? false }

    init(choice: Choice, holder: LeaseHolder?, expiresMilliseconds: UInt64?, version: Version? = nil) {
        self.choice = choice
        self.holder = holder
        self.expiresMilliseconds = expiresMilliseconds
        self.version = version
    }

    /// Whether the lease still counts at `now` in replica `replica`: not expired, and — when that
    /// replica granted it — held by a process that is still running.
    func isLive(now: UInt64, in replica: ReplicaID) -> Bool {
        if let expiresMilliseconds, now >= expiresMilliseconds { return false }
        guard let holder, holder.replica == replica, !holder.isThisProcess else { return true }
        return ProcessLiveness.isAlive(pid: holder.pid, start: holder.start)
    }

    // MARK: - StorableValue: a dictionary marked "concord.lease", or a bare choice (stored without a holder)

    public static var storedTypeName: String { "Lease<\(Choice.storedTypeName)>" }

    public init(storedValue: Value) throws {
        guard case .dictionary(let fields) = storedValue, fields["concord.lease"] == .int(1) else {
            self.init(choice: try Choice(storedValue: storedValue), holder: nil, expiresMilliseconds: nil)
            return
        }
        guard let stored = fields["choice"], case .string(let token)? = fields["holder"], case .string(let replicaHex)? = fields["replica"],
            let replica = ReplicaID(hex: replicaHex), case .int(let pid)? = fields["pid"], case .int(let start)? = fields["start"]
        else {
            throw ConcordError.typeMismatch(stored: "lease missing its choice or holder", requested: Self.storedTypeName)
        }
        let expires: UInt64?
        switch fields["expires"] {
        case nil: expires = nil
        case .int(let ms)?: expires = UInt64(max(0, ms))
        case let other?: throw ConcordError.typeMismatch(stored: "lease expiring at a \(other.typeName)", requested: Self.storedTypeName)
        }
        self.init(
            choice: try Choice(storedValue: stored),
            holder: LeaseHolder(replica: replica, token: token, pid: Int32(truncatingIfNeeded: pid), start: UInt64(max(0, start))),
            expiresMilliseconds: expires)
    }

    public func storedValue() throws -> Value? {
        guard let choiceValue = try choice.storedValue() else { return nil }
        guard let holder else { return choiceValue }
        var fields: [String: Value] = [
            "concord.lease": .int(1), "choice": choiceValue, "replica": .string(holder.replica.description),
            "holder": .string(holder.token), "pid": .int(Int(holder.pid)), "start": .int(Int(holder.start))
        ]
        if let expiresMilliseconds { fields["expires"] = .int(Int(expiresMilliseconds)) }
        return .dictionary(fields)
    }

    public static func == (a: Lease, b: Lease) -> Bool {
        a.choice == b.choice && a.holder == b.holder && a.expiresMilliseconds == b.expiresMilliseconds && a.version == b.version
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(choice)
        hasher.combine(holder)
        hasher.combine(expiresMilliseconds)
        hasher.combine(version)
    }
}

/// The process holding a lease: its replica, a random token of the process, its pid and start time.
package struct LeaseHolder: Hashable, Sendable, CustomStringConvertible {
    /// The replica whose process claimed it.
    package let replica: ReplicaID
    /// A random token of the process (32 hex digits).
    package let token: String
    /// The process id of the holder on its replica's machine.
    package let pid: Int32
    /// The process's start time (clock ticks since boot): tells a reused pid from the holder.
    package let start: UInt64

    /// This process, as the holder of leases on `replica`.
    static func thisProcess(on replica: ReplicaID) -> LeaseHolder {
        LeaseHolder(replica: replica, token: processToken, pid: ProcessLiveness.current.pid, start: ProcessLiveness.current.start)
    }

    static let processToken: String = ReplicaCore.processToken.map { String($0, radix: 16).leftPadded(2) }.joined()

    /// Whether this process is the holder.
    package var isThisProcess: Bool { token == Self.processToken }

    package var description: String { "pid \(pid) (\(token.prefix(8))) of \(replica)" }
}
