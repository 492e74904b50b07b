import CSodium

/// The libsodium primitives Concord seals suites with, as safe Swift over byte arrays: every C call
/// passes through this file, and nothing above it sees a pointer. Nothing here is Concord-specific.
///
/// ```swift
/// let key = Libsodium.randomBytes(Libsodium.keyBytes)
/// let sealed = Libsodium.seal([1, 2, 3], additionalData: [9], key: key)
/// let opened = Libsodium.open(sealed, additionalData: [9], key: key)  // [1, 2, 3]
/// ```
package enum Libsodium {
    /// The bytes of an AEAD key (XChaCha20-Poly1305 IETF), of a keyed hash's key and of a derived subkey.
    package static let keyBytes = 32
    /// The bytes of the random nonce that starts every sealed message.
    package static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// The bytes of the authentication tag that ends every sealed message.
    package static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// What sealing adds to a message: the nonce before it and the tag after it.
    package static var overhead: Int { nonceBytes + tagBytes }

    /// `sodium_init`, called once per process before any other call (it is safe to call again, and
    /// fails only when the system has no source of randomness, which leaves nothing to seal with).
    private static let initialized: Bool = sodium_init() >= 0

    private static func ready() {
        precondition(initialized, "libsodium could not initialize: the system has no source of randomness")
    }

    /// `count` bytes from the system's secure random generator.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        ready()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return out
    }

    /// `message` sealed under `key` (32 bytes) with XChaCha20-Poly1305 IETF: a fresh random nonce,
    /// then the ciphertext and its tag, which authenticates `additionalData` too.
    package static func seal(_ message: [UInt8], additionalData: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(key.count == keyBytes, "an AEAD key is \(keyBytes) bytes")
        var out = randomBytes(nonceBytes)
        out.append(contentsOf: [UInt8](repeating: 0, count: message.count + tagBytes))
        var written: UInt64 = 0
        let rc = out.withUnsafeMutableBufferPointer { buffer in
            let nonce = UnsafePointer(buffer.baseAddress!)
            let cipher = buffer.baseAddress! + nonceBytes
            return message.withUnsafeBufferPointer { m in
                additionalData.withUnsafeBufferPointer { ad in
                    key.withUnsafeBufferPointer { k in
                        crypto_aead_xchacha20poly1305_ietf_encrypt(
                            cipher, &written, m.baseAddress, UInt64(m.count), ad.baseAddress, UInt64(ad.count), nil, nonce, k.baseAddress!)
                    }
                }
            }
        }
        precondition(rc == 0 && Int(written) == message.count + tagBytes, "XChaCha20-Poly1305 encryption cannot fail on a valid key")
        return out
    }

    /// The message `sealed` (as `seal` makes it) holds, or nil when it is not one `key` sealed with
    /// `additionalData`: a wrong key, other associated data, or any byte changed.
    package static func open(_ sealed: [UInt8], additionalData: [UInt8], key: [UInt8]) -> [UInt8]? {
        ready()
        precondition(key.count == keyBytes, "an AEAD key is \(keyBytes) bytes")
        guard sealed.count >= overhead else { return nil }
        let length = sealed.count - overhead
        // One byte more than the message, so an empty message still has a buffer to be written to.
        var out = [UInt8](repeating: 0, count: length + 1)
        var written: UInt64 = 0
        let rc = out.withUnsafeMutableBufferPointer { m in
            sealed.withUnsafeBufferPointer { s in
                additionalData.withUnsafeBufferPointer { ad in
                    key.withUnsafeBufferPointer { k in
                        crypto_aead_xchacha20poly1305_ietf_decrypt(
                            m.baseAddress!, &written, nil, s.baseAddress! + nonceBytes, UInt64(s.count - nonceBytes), ad.baseAddress,
                            UInt64(ad.count), s.baseAddress!, k.baseAddress!)
                    }
                }
            }
        }
        guard rc == 0, Int(written) == length else { return nil }
        out.removeLast()
        return out
    }

    /// BLAKE2b of `message` keyed with `key` (16 to 64 bytes), `length` bytes long (16 to 64).
    package static func keyedHash(_ message: [UInt8], key: [UInt8], length: Int) -> [UInt8] {
        ready()
        precondition((16...64).contains(length) && (16...64).contains(key.count), "BLAKE2b takes 16 to 64 bytes of key and output")
        var out = [UInt8](repeating: 0, count: length)
        let rc = out.withUnsafeMutableBufferPointer { o in
            message.withUnsafeBufferPointer { m in
                key.withUnsafeBufferPointer { k in
                    crypto_generichash(o.baseAddress!, o.count, m.baseAddress, UInt64(m.count), k.baseAddress!, k.count)
                }
            }
        }
        precondition(rc == 0, "BLAKE2b cannot fail within its lengths")
        return out
    }

    /// The subkey number `id` of `key` (32 bytes) for `context` (exactly 8 ASCII bytes), with
    /// libsodium's key derivation (BLAKE2b): one key seals, another hashes names, each for its job.
    package static func deriveKey(from key: [UInt8], id: UInt64, context: String) -> [UInt8] {
        ready()
        precondition(key.count == keyBytes && context.utf8.count == 8, "a \(keyBytes)-byte key and an 8-byte context")
        var out = [UInt8](repeating: 0, count: keyBytes)
        let rc = out.withUnsafeMutableBufferPointer { o in
            key.withUnsafeBufferPointer { k in
                context.withCString { crypto_kdf_derive_from_key(o.baseAddress!, o.count, id, $0, k.baseAddress!) }
            }
        }
        precondition(rc == 0, "key derivation cannot fail within its lengths")
        return out
    }

    /// Whether `a` and `b` hold the same bytes, in time that depends on their length only.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        ready()
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in sodium_memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
}
