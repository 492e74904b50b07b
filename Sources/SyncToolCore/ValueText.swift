import Concord
import Foundation

/// Converting values to and from the text the CLI reads and prints.
enum ValueText {
    static let types = ["string", "int", "double", "float", "bool", "data", "date", "url", "uuid", "json"]

    /// Parses `text` as a value of `type` (`--type`); a mismatch is invalid input.
    static func parse(_ text: String, type: String) throws -> Value {
        func bad(_ what: String) -> CLIError { CLIError.invalid("'\(printable(text))' is not \(what)") }
        switch type {
        case "string": return .string(text)
        case "int":
            guard let v = Int(text) else { throw bad("an integer") }
            return .int(v)
        case "double":
            guard let v = Double(text), !v.isNaN else { throw bad("a number (NaN is not stored)") }
            return .double(v)
        case "float":
            guard let v = Float(text), !v.isNaN else { throw bad("a 32-bit float (NaN is not stored)") }
            guard v.isFinite || Double(text)?.isInfinite == true else { throw bad("a 32-bit float (beyond Float's range)") }
            return .float(v)
        case "uuid":
            guard let u = UUID(uuidString: text) else { throw bad("a UUID (e.g. 3F2504E0-4F89-41D3-9A0C-0305E82C3301)") }
            return .uuid(u)
        case "bool":
            switch text.lowercased() {
            case "true", "1", "yes": return .bool(true)
            case "false", "0", "no": return .bool(false)
            default: throw bad("a bool (true or false)")
            }
        case "data":
            guard let d = Data(base64Encoded: text) else { throw bad("base64 data") }
            return .data(d)
        case "date":
            guard let d = JSONValue.parseDate(text) else { throw bad("an ISO 8601 date (e.g. 2026-11-29T12:00:00Z)") }
            return .date(d)
        case "url":
            guard let u = URL(string: text), u.scheme != nil else { throw bad("an absolute URL") }
            return .url(u)
        case "json":
            do { return try JSONValue.parse(text) } catch let e as ConcordError where e.code == .unsupportedValue {
                throw CLIError.invalid(e.parts?.first ?? e.message)
            }
        default:
            throw CLIError.usage("--type must be one of \(types.joined(separator: ", ")), not '\(printable(type))'")
        }
    }

    /// The value as `get` prints it alone: strings raw, data base64, dates ISO 8601, collections as JSON.
    static func plain(_ value: Value) -> String {
        switch value {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): "\(d)"
        case .float(let f): "\(f)"
        case .uuid(let u): u.uuidString
        case .bool(let b): b ? "true" : "false"
        case .data(let d): d.base64EncodedString()
        case .date(let d): JSONValue.formatDate(d)
        case .url(let u): u.absoluteString
        case .array, .dictionary: JSONValue.render(value)
        }
    }

    /// A JSON object from ordered fields (values already rendered as JSON).
    static func object(_ fields: [(String, String)]) -> String {
        "{"
            + fields.map { key, json in
                var k = ""
                JSONValue.writeString(key, to: &k)
                return k + ":" + json
            }.joined(separator: ",") + "}"
    }

    static func json(_ s: String) -> String {
        var out = ""
        JSONValue.writeString(s, to: &out)
        return out
    }

    /// The JSON fields describing one record: suite, key, type, value (or deleted), version, when it
    /// expires (if it does: `expires`, and `expired: true` once it has), and the merge policy it reads
    /// by when it is not lww.
    static func recordFields(suite: String, key: String, record: Record, now: UInt64 = HybridClock.wallMilliseconds()) throws -> [(String, String)] {
        var fields: [(String, String)] = [("suite", json(suite)), ("key", json(key))]
        if let value = try record.value() {
            fields.append(("type", json(value.typeName)))
            fields.append(("value", JSONValue.render(value)))
        } else {
            fields.append(("type", json("deleted")))
            fields.append(("deleted", "true"))
        }
        fields.append(("version", json(record.version.description)))
        if let expires = record.expires {
            fields.append(("expires", json(JSONValue.formatDate(expires))))
            if record.hasExpired(at: now) { fields.append(("expired", "true")) }
        }
        if record.policy != .lww { fields.append(("policy", json(record.policy.rawValue))) }
        return fields
    }
}
