import Foundation

/// A libpq connection string — a URI (`postgresql://alice@db.example.com/settings?sslmode=verify-full`)
/// or `key=value` pairs, or empty to use the `PG*` environment variables — that never shows its password.
///
/// `description` is the string with every password replaced by `***`; `scrub` removes the password from
/// any text (an error message that might echo it). TLS, client certificates and `~/.pgpass` are libpq's.
///
/// ```swift
/// let url = ConnectionString("postgresql://alice:s3cret@localhost/hub")
/// print(url)   // postgresql://alice:***@localhost/hub
/// ```
package struct ConnectionString: Sendable, Hashable, CustomStringConvertible {
    /// The string as given (holds the password, if any: never print it).
    package let raw: String

    /// A connection string as written: a `postgresql://` URI or libpq's `key=value` form.
    package init(_ raw: String) { self.raw = raw }

    /// True for `postgresql://` and `postgres://` URIs.
    package static func isHubURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// True for libpq's keyword/value form: words `keyword=value` (values may be quoted), every keyword
    /// one libpq knows, as `host=db.example.com port=5432 user=alice dbname=settings`. A path never
    /// parses so unless each of its words is such a pair; `./host=x` never does.
    package static func isKeywordValue(_ text: String) -> Bool {
        guard text.contains("="), !text.hasPrefix("/"), !text.hasPrefix("."), !text.hasPrefix("~") else { return false }
        let first = text.drop(while: { $0 == " " }).prefix(while: { $0 != "=" && $0 != " " })
        guard !first.isEmpty, first.allSatisfy({ $0.isLetter || $0 == "_" }) else { return false }
        return (try? PostgresConnection.validate(ConnectionString(text))) != nil
    }

    package var description: String {
        if raw.isEmpty { return "(the PG* environment variables)" }
        return scrub(Self.redact(raw))
    }

    /// `text` with the password of this string (and of `PGPASSWORD`) replaced by `***`.
    package func scrub(_ text: String) -> String {
        var out = text
        for secret in secrets where secret.count >= 3 { out = out.replacingAll(secret, with: "***") }
        return out
    }

    /// The passwords this string carries, as written and percent-decoded, and `PGPASSWORD`'s.
    private var secrets: [String] {
        var found: [String] = []
        if let env = getenv("PGPASSWORD") { found.append(String(cString: env)) }
        for value in Self.passwordValues(raw) {
            found.append(value)
            if let decoded = value.removingPercentEncodingSimple(), decoded != value { found.append(decoded) }
        }
        return found
    }

    /// Replaces the password of a URI's user information and every `password=` value with `***`.
    static func redact(_ text: String) -> String {
        var s = text
        if let scheme = s.range(of: "://") {
            let rest = s[scheme.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"),
                let colon = rest[..<at].firstIndex(of: ":")
            {
                s.replaceSubrange(s.index(after: colon)..<at, with: "***")
            }
        }
        return redactPairs(s)
    }

    /// `password=VALUE` (in a URI query or a key/value string, the value quoted or not) becomes `password=***`.
    private static func redactPairs(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let range = rest.range(of: "password", options: .caseInsensitive) {
            out += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let spaces = rest.prefix(while: { $0 == " " })
            guard rest.dropFirst(spaces.count).first == "=" else { continue }
            rest = rest.dropFirst(spaces.count + 1)
            out += spaces + "="
            rest = rest.drop(while: { $0 == " " })
            if rest.first == "'" {
                var i = rest.index(after: rest.startIndex)
                while i < rest.endIndex, rest[i] != "'" {
                    i = rest[i] == "\\" ? rest.index(i, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex : rest.index(after: i)
                }
                rest = i < rest.endIndex ? rest[rest.index(after: i)...] : rest[rest.endIndex...]
            } else {
                rest = rest.drop(while: { $0 != " " && $0 != "&" })
            }
            out += "***"
        }
        return out + rest
    }

    /// The raw password values written in `text` (URI user information, `password=`).
    private static func passwordValues(_ text: String) -> [String] {
        var values: [String] = []
        if let scheme = text.range(of: "://") {
            let rest = text[scheme.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                values.append(String(rest[rest.index(after: colon)..<at]))
            }
        }
        var rest = Substring(text)
        while let range = rest.range(of: "password", options: .caseInsensitive) {
            rest = rest[range.upperBound...].drop(while: { $0 == " " })
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop(while: { $0 == " " })
            if rest.first == "'" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "'") ?? body.endIndex
                values.append(String(body[..<end]))
                rest = body[end...]
            } else {
                let value = rest.prefix(while: { $0 != " " && $0 != "&" })
                values.append(String(value))
                rest = rest.dropFirst(value.count)
            }
        }
        return values.filter { !$0.isEmpty }
    }
}

#if canImport(Glibc)
    import Glibc
#endif

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }

    /// Decodes `%XX` escapes (a URI's user information); nil when an escape is malformed.
    func removingPercentEncodingSimple() -> String? {
        var bytes: [UInt8] = []
        var it = Array(utf8)[...]
        while let c = it.popFirst() {
            if c == UInt8(ascii: "%") {
                guard it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(c)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
