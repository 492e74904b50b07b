import ConcordStore

/// Why a sync session over a stream failed. A session checks every frame whole before it merges
/// anything from it, so the batch of a refused frame is never merged (earlier batches, each
/// acknowledged, stay merged: cursors only move forward and the next session resumes after them).
///
/// ```swift
/// func describe(_ error: any Error) -> String {
///     if let error = error as? SyncProtocolError, error.kind == .unreachable { return "offline: \(error)" }
///     return "\(error)"
/// }
/// ```
public struct SyncProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kinds of failure, each calling for a different response.
    public enum Kind: UInt8, Sendable, Equatable {
        /// The peer cannot be reached, refused the login, or the connection dropped.
        case unreachable = 1
        /// Nothing arrived for longer than the silence timeout.
        case timeout = 2
        /// The stream ended in the middle of a frame.
        case truncated = 3
        /// A frame's checksum does not match, or its bytes describe something impossible.
        case malformed = 4
        /// A frame is larger than the limits allow.
        case oversized = 5
        /// The peer speaks a newer protocol version than this side.
        case newerVersion = 6
        /// The peer serves read-only and refused to merge.
        case readOnly = 7
        /// The peer's replica refused the request (it cannot be opened, or the request is invalid).
        case refused = 8
        /// The peer's replica failed while merging or reading (a store error on its side).
        case peerStore = 9
        /// The peer speaks an older protocol version than this side, which cannot prove its cursors.
        case olderVersion = 10
    }

    /// Which kind of failure this is.
    public let kind: Kind
    /// What went wrong, for a person to act on.
    public let message: String

    /// A failure of `kind`, explained by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
