import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A pair of byte streams carrying sync frames: a pipe pair to a child (`ssh host sync-tool serve`),
/// standard input and output (`serve`), or a socket. Reads wait at most `timeout` seconds for the
/// next bytes (silence is an error), and sends as long for the peer to take the next bytes (a peer
/// that stops reading is an error too); a frame over `limits.maxBytes` is refused from its header,
/// before any of it is read.
///
/// ```swift
/// let channel = SyncChannel(input: 0, output: 1, timeout: 60)
/// try channel.send(.end)
/// ```
package final class SyncChannel: @unchecked Sendable {
    package let input: Int32
    package let output: Int32
    /// Seconds of silence a read accepts before failing.
    package var timeout: Double
    package var limits: BundleLimits
    /// Bytes read but not yet decoded.
    private var buffer: [UInt8] = []
    /// Why the last send failed: the stream then holds part of a frame and takes no more.
    private var broken: ConcordError?
    private var start = 0
    /// Says what to blame when the stream ends or breaks (a remote's ssh diagnostics, for example).
    package var describeFailure: @Sendable (String) -> ConcordError = { ConcordError.session(.unreachable, $0) }

    package init(input: Int32, output: Int32, timeout: Double = 60, limits: BundleLimits = SyncChannel.defaultLimits) {
        self.input = input
        self.output = output
        self.timeout = timeout
        self.limits = limits
        signal(SIGPIPE, SIG_IGN) // a closed peer is an error value, not a signal that kills this process
    }

    /// Frames of at most 64 MiB (a batch holds a few MiB; one value may be up to the 4 MiB value limit).
    package static var defaultLimits: BundleLimits {
        var limits = BundleLimits()
        limits.maxBytes = 64 << 20
        return limits
    }

    /// Bytes buffered and not yet read as frames.
    package var hasBufferedBytes: Bool { buffer.count > start }

    /// Sends `frame`. A peer that takes none of it for `timeout` seconds (it stopped reading, so the
    /// pipe or socket stays full) fails the send, as silence fails a read: the output is non-blocking
    /// while a frame goes out, so a full stream is waited for in `poll`, never inside `write`. After a
    /// failed send the stream holds part of a frame, so every later send fails at once.
    package func send(_ frame: SyncFrame) throws(ConcordError) {
        if let broken { throw broken }
        let bytes = frame.encoded()
        let flags = fcntl(output, F_GETFL)
        let switched = flags >= 0 && flags & O_NONBLOCK == 0 && fcntl(output, F_SETFL, flags | O_NONBLOCK) == 0
        defer { if switched { _ = fcntl(output, F_SETFL, flags) } }
        var offset = 0
        while offset < bytes.count {
            // At most what a pipe holds per write: a partial write then copies no more than that.
            let part = offset == 0 && bytes.count <= Self.writeChunk ? bytes : Array(bytes[offset..<min(offset + Self.writeChunk, bytes.count)])
            let n = write(output, part, part.count)
            if n >= 0 {
                offset += n
                continue
            }
            if errno == EINTR { continue }
            guard errno == EAGAIN else {
                broken = describeFailure("the connection closed while sending (\(String(cString: strerror(errno))))")
                throw broken!
            }
            var ready = pollfd(fd: output, events: Int16(POLLOUT), revents: 0)
            if poll(&ready, 1, Self.milliseconds(timeout)) == 0 {
                broken = ConcordError.session(
                    .timedOut,
                    "the peer stopped reading: it took none of the \(bytes.count - offset) bytes left to send for \(Self.seconds(timeout)) (the timeout): giving up on the session"
                )
                throw broken!
            }
        }
    }

    /// The next frame, or nil when the stream ended cleanly between frames.
    package func receive() throws(ConcordError) -> SyncFrame? {
        guard try fill(SyncFrame.headerSize, allowingEnd: true) else { return nil }
        var header = ByteReader(Array(buffer[start..<(start + SyncFrame.headerSize)]))
        let kind = (try? header.u8()) ?? 0
        let length = Int((try? header.u32()) ?? 0)
        guard SyncFrame.Kind(rawValue: kind) != nil else {
            throw ConcordError.session(
                .malformed, "a frame of unknown kind \(kind): the peer is not speaking the Concord sync protocol, or the stream is damaged")
        }
        guard length <= limits.maxBytes else {
            throw ConcordError.session(
                .oversized, "the peer sent a frame of \(length) bytes, over the limit of \(limits.maxBytes) bytes: refused unread, nothing from it was merged")
        }
        guard try fill(SyncFrame.headerSize + length, allowingEnd: false) else { return nil }
        let payload = Array(buffer[(start + SyncFrame.headerSize)..<(start + SyncFrame.headerSize + length)])
        start += SyncFrame.headerSize + length
        if start > 1 << 20 || start == buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return try SyncFrame.decode(kind: kind, payload: payload, limits: limits)
    }

    /// Waits until the stream has bytes to read or `other` becomes readable, for at most `seconds`
    /// (nil: no limit). Returns which: `.stream`, `.other` or `.timeout`.
    package func wait(orReadable other: Int32, seconds: Double?) -> Readiness {
        if hasBufferedBytes { return .stream }
        var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0), pollfd(fd: other, events: Int16(POLLIN), revents: 0)]
        let ms = seconds.map { Int32(min($0 * 1000, Double(Int32.max))) } ?? -1
        while true {
            let n = poll(&fds, 2, ms)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return .timeout }
            if fds[0].revents != 0 { return .stream }
            return .other
        }
    }

    package enum Readiness { case stream, other, timeout }

    /// Reads until `count` bytes are buffered. False when the stream ended cleanly before any byte of
    /// a frame (`allowingEnd`); throws when it ended inside one, broke, or stayed silent too long.
    private func fill(_ count: Int, allowingEnd: Bool) throws(ConcordError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while buffer.count - start < count {
            var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 1, Self.milliseconds(timeout))
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                throw ConcordError.session(.timedOut, "the peer sent nothing for \(Self.seconds(timeout)) (the silence timeout): giving up on the session")
            }
            let n = read(input, &chunk, chunk.count)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw describeFailure("the connection broke while reading (\(String(cString: strerror(errno))))")
            }
            if n == 0 {
                let have = buffer.count - start
                if have == 0 && allowingEnd { return false }
                throw ConcordError.session(
                    .truncated,
                    "the stream ended in the middle of a frame (\(have) of \(max(count, SyncFrame.headerSize)) bytes): the connection dropped or the peer stopped; nothing from that frame was merged"
                )
            }
            buffer.append(contentsOf: chunk[..<n])
        }
        return true
    }

    /// The most one `write` is handed (a pipe's capacity).
    static let writeChunk = 64 << 10

    static func milliseconds(_ seconds: Double) -> Int32 { Int32(min(seconds * 1000, Double(Int32.max))) }

    static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
}
