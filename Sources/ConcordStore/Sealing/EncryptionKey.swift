import Foundation
import Sodium

/// A 256-bit key that an encrypted suite's records are sealed with. The application keeps it where
/// it keeps secrets and hands it to the store (``Store/Options/suiteKeys``, or
/// ``Suite/useKey(_:)``); Concord never writes it to the replica, a bundle or the hub. Its
/// `description` shows only its identifier (a keyed hash that reveals nothing of the key), never the key.
///
/// ```swift
/// let key = EncryptionKey.generate()
/// try key.write(toFile: "/tmp/concord-example.key")         // 64 hex digits, mode 0600
/// let same = try EncryptionKey(contentsOfFile: "/tmp/concord-example.key")
/// print(same)                                                // EncryptionKey(id 3f2a…), never the key
/// ```
public struct EncryptionKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key's bytes.
    private let secret: [UInt8]
    /// The subkey records are sealed with (XChaCha20-Poly1305).
    package let sealingKey: [UInt8]
    /// The subkey key names are hashed with (keyed BLAKE2b).
    package let namingKey: [UInt8]
    /// The key's identifier: the keyed hash of a fixed label under a subkey of its own, so two keys
    /// are told apart (and a wrong key is refused) before anything is opened.
    package let id: [UInt8]

    /// The bytes of a key.
    package static let byteCount = Libsodium.keyBytes

    /// A key of exactly 32 bytes.
    ///
    /// ```swift
    /// let key = try EncryptionKey(bytes: [UInt8](repeating: 7, count: 32))
    /// ```
    ///
    /// - Throws: ``ConcordError`` `.invalidArgument` unless there are exactly 32 bytes.
    public init(bytes: some Sequence<UInt8>) throws {
        let secret = Array(bytes)
        guard secret.count == Self.byteCount else {
            throw ConcordError(.invalidArgument, "a suite's encryption key is \(Self.byteCount) bytes, not \(secret.count)")
        }
        self.secret = secret
        sealingKey = Libsodium.deriveKey(from: secret, id: 1, context: "concord1")
        namingKey = Libsodium.deriveKey(from: secret, id: 2, context: "concord1")
        id = Libsodium.keyedHash(Array("concord suite key id".utf8), key: Libsodium.deriveKey(from: secret, id: 3, context: "concord1"), length: 16)
    }

    /// A new key from the system's secure random generator.
    public static func generate() -> EncryptionKey {
        // Exactly the bytes a key takes, so the initializer cannot refuse them.
        guard let key = try? EncryptionKey(bytes: Libsodium.randomBytes(byteCount)) else { preconditionFailure("32 random bytes are a key") }
        return key
    }

    /// The key a key file holds: 64 hexadecimal digits (what ``write(toFile:)`` and `sync-tool keygen`
    /// write), surrounding white space ignored.
    ///
    /// ```swift
    /// let key = try EncryptionKey(contentsOfFile: "/etc/myapp/settings.key")
    /// ```
    ///
    /// - Throws: ``ConcordError`` `.unreadable` when the file cannot be read, `.invalidArgument` when
    ///   it holds anything but a key's 64 hex digits.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConcordError(.unreadable, "cannot read the key file \(path) (missing, a directory, or no permission)", path: path)
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Self.bytes(hex: text) else {
            throw ConcordError(.invalidArgument, "the key file \(path) does not hold a key: it must be 64 hexadecimal digits", path: path)
        }
        try self.init(bytes: bytes)
    }

    /// Writes the key to a new file at `path` as 64 hex digits and a newline, readable by its owner
    /// only (mode 0600).
    ///
    /// ```swift
    /// try EncryptionKey.generate().write(toFile: "/tmp/concord-new.key")
    /// ```
    ///
    /// - Throws: ``ConcordError`` `.unwritable` when the file exists already (a key is never
    ///   overwritten) or cannot be created.
    public func write(toFile path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? "it exists already (a key file is never overwritten)" : String(cString: strerror(errno))
            throw ConcordError(.unwritable, "cannot write the key file \(path): \(reason)", path: path)
        }
        defer { close(fd) }
        let text = Array((secret.map { String($0, radix: 16).leftPadded(2) }.joined() + "\n").utf8)
        let written = text.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        guard written == text.count, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw ConcordError(.unwritable, "cannot write the key file \(path): \(reason)", path: path)
        }
    }

    /// The identifier as hex digits: what `description` and error messages show.
    package var idText: String { Self.idText(id) }

    /// The first hex digits of the key identifier `id`, as error messages show a declared key's.
    package static func idText(_ id: [UInt8]) -> String { id.prefix(8).map { String($0, radix: 16).leftPadded(2) }.joined() }

    /// Shows the key's identifier, never the key.
    public var description: String { "EncryptionKey(id \(idText)…)" }
    /// Shows the key's identifier, never the key.
    public var debugDescription: String { description }
    /// Reflects the identifier only, so `dump` and debuggers never show the key.
    public var customMirror: Mirror { Mirror(self, children: ["id": idText], displayStyle: .struct) }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * byteCount else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension EncryptionKey {
    /// Whether `key` is the key whose identifier is `id` (compared in constant time).
    package static func same(id: [UInt8], as key: EncryptionKey) -> Bool { Libsodium.constantTimeEqual(id, key.id) }
}
