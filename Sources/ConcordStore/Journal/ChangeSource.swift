/// Who made a change, as the journal stores it: a process writing to this replica
/// (identified by a random token per process) or a sync that merged it from a peer.
///
/// Readers see it as a ``ChangeOrigin``.
package enum ChangeSource: Hashable, Sendable {
    /// A process that has the replica open; the token is random per process.
    case process(token: [UInt8])
    /// A sync that merged the change from `peer`.
    case sync(peer: ReplicaID)

    /// `[kind 1][token or peer 16]`, as journal entries and conflicts store it.
    package func encode(into out: inout ByteWriter) {
        out.fixed(Self.encodedSize) { encode(into: &$0) }
    }

    /// The bytes `encode` writes.
    static let encodedSize = 17

    func encode(into out: inout OutputSpan<UInt8>) {
        switch self {
        case .process(let token):
            out.u8(0)
            out.bytes(token)
        case .sync(let peer):
            out.u8(1)
            out.bytes(peer.bytes)
        }
    }

    package static func decode(_ r: inout ByteReader) throws(ValueDecodingError) -> ChangeSource {
        let kind = try r.u8()
        let id = Array(try r.take(16))
        switch kind {
        case 0: return .process(token: id)
        case 1: return .sync(peer: ReplicaID(bytes: id)!)
        default: throw ValueDecodingError("unknown change source kind \(kind)")
        }
    }
}
