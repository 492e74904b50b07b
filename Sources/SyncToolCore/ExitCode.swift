import Concord

/// The exit codes of `sync-tool`; scripts depend on them.
public enum ExitCode: Int32, Sendable {
    case ok = 0
    /// The key (or other thing asked for) does not exist.
    case notFound = 1
    /// Unknown command or flag, missing or extra argument.
    case usage = 2
    /// A bad value for its type, a bad name, over a limit, a bad bundle.
    case invalidInput = 3
    /// The store cannot be opened, is damaged, or is of a newer format; the hub refused a statement.
    case storeError = 4
    /// The peer cannot be reached: the hub's server or the remote host is down or unreachable, it refused
    /// the login, the connection dropped, or the peer went silent past the timeout.
    case unreachable = 5
    /// The hub refused a push whole: it would take the account past a limit (`sync-tool hub set-quota`).
    case overQuota = 6
    /// The key given (`--key-file`, `CONCORD_KEY_FILE`) is not the one the suite is encrypted with.
    case wrongKey = 7
    /// The key given is one the suite was rotated from (`sync-tool rotate-key`): give the new key.
    case keyRotated = 8
    /// `--dry-run` found changes pending.
    case pending = 10
}

extension ExitCode {
    /// The exit code of a command that failed with `error`: one table for every code.
    init(for error: ConcordError) {
        switch error.code {
        case .noSuchConflict: self = .notFound
        case .invalidSuiteName, .invalidKey, .unsupportedValue, .valueTooLarge, .typeMismatch, .policyMismatch, .reservedSuite, .invalidSchema,
            .invalidReplicaName, .invalidArgument, .sameReplica, .nothingToRecover, .refusedRecord, .malformed, .truncated, .checksumMismatch,
            .oversized, .notABundle, .newerBundle, .wrongReplica, .unreadable, .unwritable, .newerProtocol, .olderProtocol, .readOnly,
            .refusedByPeer, .notAcknowledged, .accountExists, .unknownAccount, .transactionPooling, .suiteKeyMissing:
            self = .invalidInput
        case .newerFormat, .newerSchema, .migrationFailed, .damaged, .insecure, .io, .storage, .reentrantCall, .versionExhausted, .peerStore,
            .hubNotInitialized, .newerHubSchema, .accountNotVisible, .hubRefused:
            self = .storeError
        case .unreachable, .timedOut: self = .unreachable
        case .overQuota: self = .overQuota
        case .suiteKeyMismatch: self = .wrongKey
        case .suiteKeyRotated: self = .keyRotated
        }
    }
}

/// An error that ends a command with a one-line message on stderr and an exit code.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    public let code: ExitCode
    public let message: String
    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }

    static func usage(_ message: String) -> CLIError { CLIError(.usage, message) }
    static func invalid(_ message: String) -> CLIError { CLIError(.invalidInput, message) }
}
