import Foundation

/// JSON ⇄ `Value`: objects are dictionaries, arrays arrays, integers `int`, other numbers `double`,
/// strings `string`, booleans `bool`. `null` has no `Value` and is refused.
/// Writing renders `data` as base64, `date` as ISO 8601, `url` as its string, `float` as a number
/// and `uuid` as its string (JSON has no types for them; the CLI's `--json` output names the type).
package enum JSONValue {
    /// Parses one JSON document.
    package static func parse(_ data: Data) throws -> Value {
        var parser = Parser(bytes: [UInt8](data))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.offset == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// Parses one JSON document from a string.
    package static func parse(_ text: String) throws -> Value { try parse(Data(text.utf8)) }

    /// Renders `value` as compact JSON with sorted keys.
    package static func serialize(_ value: Value) throws -> Data { Data(render(value).utf8) }

    /// Renders `value` as compact JSON text with sorted keys.
    package static func render(_ value: Value) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    static func write(_ value: Value, to out: inout String) {
        switch value {
        case .string(let s): writeString(s, to: &out)
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isInfinite { out += d > 0 ? "1e999" : "-1e999" } else { out += "\(d)" }
        case .float(let f):
            if f.isInfinite { out += f > 0 ? "1e999" : "-1e999" } else { out += "\(f)" }
        case .uuid(let u): writeString(u.uuidString, to: &out)
        case .bool(let b): out += b ? "true" : "false"
        case .data(let d): writeString(d.base64EncodedString(), to: &out)
        case .date(let d): writeString(formatDate(d), to: &out)
        case .url(let u): writeString(u.absoluteString, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .dictionary(let dict):
            out += "{"
            for (i, key) in dict.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                writeString(key, to: &out)
                out += ":"
                write(dict[key]!, to: &out)
            }
            out += "}"
        }
    }

    package static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                out += "\\u" + String(scalar.value, radix: 16).leftPadded(4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// A date as ISO 8601 with milliseconds: `2026-11-29T22:42:14.123Z`.
    package static func formatDate(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    /// Parses ISO 8601, with or without fractional seconds.
    package static func parseDate(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    struct Parser {
        let bytes: [UInt8]
        var offset = 0

        func error(_ message: String) -> ConcordError {
            .unsupportedValue(key: "", reason: "invalid JSON at byte \(offset): \(message)")
        }

        mutating func skipWhitespace() {
            while offset < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[offset]) { offset += 1 }
        }

        mutating func value(depth: Int) throws -> Value {
            guard depth <= ValueCodec.maxDepth else { throw error("nested deeper than \(ValueCodec.maxDepth) levels") }
            guard offset < bytes.count else { throw error("unexpected end") }
            switch bytes[offset] {
            case UInt8(ascii: "{"):
                offset += 1
                var dict: [String: Value] = [:]
                skipWhitespace()
                if peek(UInt8(ascii: "}")) {
                    offset += 1
                    return .dictionary(dict)
                }
                while true {
                    skipWhitespace()
                    let key = try string()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    skipWhitespace()
                    dict[key] = try value(depth: depth + 1)
                    skipWhitespace()
                    if peek(UInt8(ascii: ",")) {
                        offset += 1
                        continue
                    }
                    try expect(UInt8(ascii: "}"))
                    return .dictionary(dict)
                }
            case UInt8(ascii: "["):
                offset += 1
                var items: [Value] = []
                skipWhitespace()
                if peek(UInt8(ascii: "]")) {
                    offset += 1
                    return .array(items)
                }
                while true {
                    skipWhitespace()
                    items.append(try value(depth: depth + 1))
                    skipWhitespace()
                    if peek(UInt8(ascii: ",")) {
                        offset += 1
                        continue
                    }
                    try expect(UInt8(ascii: "]"))
                    return .array(items)
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"): throw error("null cannot be stored")
            default: return try number()
            }
        }

        func peek(_ b: UInt8) -> Bool { offset < bytes.count && bytes[offset] == b }

        mutating func expect(_ b: UInt8) throws {
            guard peek(b) else { throw error("expected '\(Character(Unicode.Scalar(b)))'") }
            offset += 1
        }

        mutating func literal(_ word: String) throws {
            let w = Array(word.utf8)
            guard offset + w.count <= bytes.count, Array(bytes[offset..<offset + w.count]) == w else { throw error("expected \(word)") }
            offset += w.count
        }

        mutating func number() throws -> Value {
            let start = offset
            var isInteger = true
            while offset < bytes.count {
                let b = bytes[offset]
                if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") {
                    offset += 1
                } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
                    isInteger = false
                    offset += 1
                } else {
                    break
                }
            }
            guard offset > start, let text = String(bytes: bytes[start..<offset], encoding: .utf8) else { throw error("expected a value") }
            if isInteger, let i = Int(text) { return .int(i) }
            guard let d = Double(text), !d.isNaN else { throw error("\(text) is not a number") }
            return .double(d)
        }

        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() throws {
                guard !raw.isEmpty else { return }
                guard let s = String(validating: raw, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                scalars.append(contentsOf: s.unicodeScalars)
                raw.removeAll()
            }
            while true {
                guard offset < bytes.count else { throw error("unterminated string") }
                let b = bytes[offset]
                offset += 1
                switch b {
                case UInt8(ascii: "\""):
                    try flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    try flush()
                    guard offset < bytes.count else { throw error("unterminated escape") }
                    let e = bytes[offset]
                    offset += 1
                    switch e {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0c}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code) {
                            try literal("\\u")
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                        scalars.append(scalar)
                    default: throw error("invalid escape")
                    }
                case 0..<0x20: throw error("control character in a string")
                default: raw.append(b)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard offset + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16) else {
                throw error("invalid \\u escape")
            }
            offset += 4
            return v
        }
    }
}
