/// The declared shape of a command: its arguments, options and flags. Parsing and `--help` both come from it.
public struct CommandSpec: Sendable {
    public struct Positional: Sendable {
        let name: String
        let help: String
        var optional = false
        /// The values it takes, when it is one of a few (shell completion offers them).
        var choices: [String] = []
    }
    public struct Option: Sendable {
        let name: String
        let valueName: String
        let help: String
        var repeating = false
        /// The values it takes, when it is one of a few (shell completion offers them).
        var choices: [String] = []
        /// Given alone (`--progress`) it takes no value (parsed as ""); a value comes only after `=`.
        var valueOptional = false
    }
    public struct Flag: Sendable {
        let name: String
        let help: String
    }

    public let name: String
    public let abstract: String
    public var positionals: [Positional] = []
    public var options: [Option] = []
    public var flags: [Flag] = []
    public var discussion: String = ""

    public var usage: String {
        var parts = ["sync-tool", name]
        var optionalDepth = 0
        for p in positionals {
            if p.optional {
                parts.append("[" + p.name)
                optionalDepth += 1
            } else {
                parts.append(p.name)
            }
        }
        if optionalDepth > 0 { parts[parts.count - 1] += String(repeating: "]", count: optionalDepth) }
        for o in options { parts.append((o.valueOptional ? "[--\(o.name)[=\(o.valueName)]]" : "[--\(o.name) \(o.valueName)]") + (o.repeating ? "..." : "")) }
        for f in flags { parts.append("[--\(f.name)]") }
        return parts.joined(separator: " ")
    }

    public var help: String {
        var out = "Usage: \(usage)\n\n\(abstract)\n"
        if !discussion.isEmpty { out += "\n\(discussion)\n" }
        if !positionals.isEmpty {
            out += "\nArguments:\n"
            for p in positionals { out += "  " + p.name.padding(toLength: 22, withPad: " ", startingAt: 0) + p.help + "\n" }
        }
        out += "\nOptions:\n"
        for o in options {
            out +=
                "  " + (o.valueOptional ? "--\(o.name)[=\(o.valueName)]" : "--\(o.name) \(o.valueName)").padding(toLength: 22, withPad: " ", startingAt: 0)
                + o.help + "\n"
        }
        for f in flags { out += "  " + "--\(f.name)".padding(toLength: 22, withPad: " ", startingAt: 0) + f.help + "\n" }
        out +=
            "  " + "--key-file FILE".padding(toLength: 22, withPad: " ", startingAt: 0)
            + "The key of the encrypted suites it reads or writes (or CONCORD_KEY_FILE).\n"
        out += "  " + "-h, --help".padding(toLength: 22, withPad: " ", startingAt: 0) + "Show this help.\n"
        return out
    }

    /// Splits `arguments` into positionals, options and flags; anything undeclared is a usage error.
    func parse(_ arguments: [String]) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let arg = arguments[index]
            index += 1
            if onlyPositionals || !arg.hasPrefix("-") || arg == "-" || Double(arg) != nil {
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            guard arg.hasPrefix("--") else { throw CLIError.usage("unknown option '\(printable(arg))' for '\(name)' (see sync-tool \(name) --help)") }
            var body = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = body.firstIndex(of: "=") {
                inlineValue = String(body[body.index(after: eq)...])
                body = String(body[..<eq])
            }
            if let option = options.first(where: { $0.name == body }) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if option.valueOptional {
                    value = ""
                } else {
                    guard index < arguments.count else { throw CLIError.usage("option --\(body) needs a value (\(option.valueName))") }
                    value = arguments[index]
                    index += 1
                }
                if !option.repeating && parsed.options[body] != nil { throw CLIError.usage("option --\(body) given twice") }
                parsed.options[body, default: []].append(value)
            } else if flags.contains(where: { $0.name == body }) {
                guard inlineValue == nil else { throw CLIError.usage("flag --\(body) takes no value") }
                parsed.flags.insert(body)
            } else {
                throw CLIError.usage("unknown option '--\(printable(body))' for '\(name)' (see sync-tool \(name) --help)")
            }
        }
        let required = positionals.filter { !$0.optional }.count
        if parsed.positionals.count < required {
            throw CLIError.usage("missing argument \(positionals[parsed.positionals.count].name) (usage: \(usage))")
        }
        if parsed.positionals.count > positionals.count {
            throw CLIError.usage("unexpected argument '\(printable(parsed.positionals[positionals.count]))' (usage: \(usage))")
        }
        return parsed
    }
}

/// The arguments of one invocation, after parsing against a `CommandSpec`.
public struct ParsedArguments: Sendable {
    var positionals: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []

    func positional(_ index: Int) -> String? { index < positionals.count ? positionals[index] : nil }
    func option(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// Shows control characters and odd bytes of user input as escapes, so error lines stay one line.
func printable(_ s: String) -> String {
    let shown = s.count > 100 ? String(s.prefix(100)) + "…" : s
    return shown.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
}
