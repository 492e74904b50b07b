/// A replica on another machine, as `sync` takes it: `[user@]host:PATH` (as scp and rsync write it)
/// or `ssh://[user@]host[:port]/PATH`. Anything else is a local directory.
///
/// ```swift
/// let remote = try RemoteAddress.parse("alice@desktop:settings")   // PATH relative to alice's home
/// let other = try RemoteAddress.parse("ssh://alice@desktop:2222/srv/settings")
/// RemoteAddress.isRemote("/tmp/a:b")   // false: a path with a slash before the colon is local
/// ```
package struct RemoteAddress: Sendable, Equatable, CustomStringConvertible {
    /// The login name, or nil for ssh's default.
    package let user: String?
    /// The machine to reach.
    package let host: String
    /// The ssh port, or nil for ssh's default.
    package let port: Int?
    /// The replica's directory on that machine (relative paths start in the user's home).
    package let path: String

    /// The replica at `path` on `host`, reached as `user` on `port`.
    package init(user: String?, host: String, port: Int?, path: String) {
        self.user = user
        self.host = host
        self.port = port
        self.path = path
    }

    /// True when `text` names a remote replica rather than a local directory.
    package static func isRemote(_ text: String) -> Bool {
        if text.hasPrefix("ssh://") { return true }
        guard let colon = text.firstIndex(of: ":") else { return false }
        return !text[..<colon].contains("/") && colon != text.startIndex
    }

    /// Parses a remote address; throws with what is wrong (an empty host or path, a bad port).
    package static func parse(_ text: String) throws(ConcordError) -> RemoteAddress {
        func bad(_ why: String) -> ConcordError {
            ConcordError.session(.refusedByPeer, "'\(text)' is not a remote replica address: \(why) (write [user@]host:PATH or ssh://[user@]host[:port]/PATH)")
        }
        var rest: Substring
        var port: Int?
        let path: String
        if text.hasPrefix("ssh://") {
            let body = text.dropFirst("ssh://".count)
            guard let slash = body.firstIndex(of: "/") else { throw bad("no /PATH after the host") }
            rest = body[..<slash]
            path = String(body[slash...])
            if let colon = rest.lastIndex(of: ":") {
                guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { throw bad("the port must be a number from 1 to 65535") }
                port = p
                rest = rest[..<colon]
            }
        } else {
            guard let colon = text.firstIndex(of: ":") else { throw bad("no ':' between host and path") }
            rest = text[..<colon]
            path = String(text[text.index(after: colon)...])
        }
        var user: String?
        if let at = rest.lastIndex(of: "@") {
            user = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
            guard !user!.isEmpty else { throw bad("the user before '@' is empty") }
        }
        guard !rest.isEmpty else { throw bad("the host is empty") }
        guard !rest.hasPrefix("-"), !(user ?? "").hasPrefix("-") else { throw bad("a host or user may not start with '-'") }
        guard !path.isEmpty, path != "/" || !text.hasPrefix("ssh://") else { throw bad("the path is empty") }
        return RemoteAddress(user: user, host: String(rest), port: port, path: path)
    }

    /// `user@host` (or `host`), as ssh takes it.
    public var destination: String { user.map { "\($0)@\(host)" } ?? host }

    public var description: String { "\(destination)\(port.map { ":\($0)" } ?? ""):\(path)" }
}
