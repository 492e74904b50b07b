import Foundation

/// A statement or declaration at the top level of a block, with the comments and attribute lines
/// before it.
struct CodeChunk {
    enum Kind: Equatable {
        case importDeclaration
        /// A type, a protocol or an extension: `conforms` when it declares a conformance (an extension
        /// that does cannot be `fileprivate`).
        case typeDeclaration(keyword: String, attributes: [String], conforms: Bool)
        /// A `@Test` function (Swift Testing accepts it only at file scope).
        case testFunction
        case other
    }

    let lines: [SourceLine]
    let kind: Kind

    /// Whether Swift refuses it inside a function body: an import, an extension, a protocol, a type
    /// with an attached extension macro (`@Observable`) or `@main`, or a `@Test` function.
    var needsFileScope: Bool {
        switch kind {
        case .importDeclaration, .testFunction: return true
        case .typeDeclaration(let keyword, let attributes, _):
            return keyword == "extension" || keyword == "protocol" || attributes.contains("Observable") || attributes.contains("main")
        case .other: return false
        }
    }

    /// Splits code into top-level chunks: a chunk ends at the end of a line where every bracket it opened
    /// is closed again.
    static func split(_ lines: [SourceLine]) -> [CodeChunk] {
        var chunks: [CodeChunk] = []
        var scanner = BracketScanner()
        var pending: [SourceLine] = []
        for line in lines {
            let wasTopLevel = scanner.isTopLevel
            scanner.scan(line.text)
            pending.append(line)
            let trimmed = line.text.trimmingCharacters(in: .whitespaces)
            // Comments, attribute-only lines and blank lines before a declaration belong to it.
            if wasTopLevel, scanner.isTopLevel, trimmed.isEmpty || trimmed.hasPrefix("//") || isAttributeOnly(trimmed) { continue }
            if scanner.isTopLevel {
                chunks.append(CodeChunk(lines: pending, kind: kind(of: pending)))
                pending = []
            }
        }
        if !pending.isEmpty { chunks.append(CodeChunk(lines: pending, kind: kind(of: pending))) }
        return chunks
    }

    private static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "open", "final", "nonisolated", "indirect"
    ]
    private static let typeKeywords: Set<String> = ["struct", "enum", "class", "actor", "protocol", "extension"]

    private static func kind(of lines: [SourceLine]) -> Kind {
        var attributes: [String] = []
        for line in lines {
            var text = Substring(line.text.trimmingCharacters(in: .whitespaces))
            if text.isEmpty || text.hasPrefix("//") { continue }
            while text.hasPrefix("@") {
                let name = text.dropFirst().prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" })
                attributes.append(String(name))
                text = skipAttribute(text)
            }
            if text.isEmpty { continue }
            var words = text.split(whereSeparator: { $0 == " " || $0 == "<" || $0 == ":" || $0 == "{" }).map(String.init)
            while let first = words.first, modifiers.contains(first) { words.removeFirst() }
            guard let keyword = words.first else { return .other }
            if keyword == "import" { return .importDeclaration }
            if keyword == "func" && attributes.contains("Test") { return .testFunction }
            guard typeKeywords.contains(keyword) else { return .other }
            let header = text.prefix(while: { $0 != "{" })
            let conforms = keyword == "extension" && header.contains(":")
            return .typeDeclaration(keyword: keyword, attributes: attributes, conforms: conforms)
        }
        return .other
    }

    /// Whether a line holds only attributes (`@Observable`, `@available(…)`).
    private static func isAttributeOnly(_ trimmed: String) -> Bool {
        var text = Substring(trimmed)
        guard text.hasPrefix("@") else { return false }
        while text.hasPrefix("@") { text = skipAttribute(text) }
        return text.isEmpty
    }

    /// `text` after the attribute it starts with and the spaces that follow it.
    private static func skipAttribute(_ text: Substring) -> Substring {
        var rest = text.dropFirst().drop(while: { $0.isLetter || $0.isNumber || $0 == "_" })
        if rest.hasPrefix("(") {
            var depth = 0
            for index in rest.indices {
                if rest[index] == "(" { depth += 1 }
                if rest[index] == ")" { depth -= 1 }
                if depth == 0 {
                    rest = rest[rest.index(after: index)...]
                    break
                }
            }
        }
        return rest.drop(while: { $0 == " " })
    }

    /// This chunk's lines with `fileprivate` before its declaration's keyword, so that two examples may
    /// declare a type or an extension member of the same name; unchanged when it has an access modifier
    /// or is an extension that declares a conformance.
    func madeFilePrivate() -> [SourceLine] {
        guard case .typeDeclaration(_, _, let conforms) = kind, !conforms else { return lines }
        var result = lines
        for (index, line) in lines.enumerated() {
            let pattern = #"(^|\s)((final\s+)?(struct|enum|class|actor|protocol|extension))\b"#
            guard let match = line.text.range(of: pattern, options: .regularExpression) else { continue }
            let prefix = line.text[..<match.lowerBound]
            let words = Set(prefix.split(separator: " ").map(String.init))
            if !words.isDisjoint(with: ["public", "private", "fileprivate", "internal", "package", "open"]) { return lines }
            var text = line.text
            let keyword = text.range(of: #"(final\s+)?(struct|enum|class|actor|protocol|extension)\b"#, options: .regularExpression, range: match)!
            text.insert(contentsOf: "fileprivate ", at: keyword.lowerBound)
            result[index] = SourceLine(number: line.number, text: text)
            return result
        }
        return lines
    }
}

/// Follows the brackets of Swift code line by line, ignoring those in string literals and comments.
struct BracketScanner {
    private var depth = 0
    /// The depth at which each open string interpolation started.
    private var interpolations: [Int] = []
    private var inString = false
    private var inMultilineString = false

    var isTopLevel: Bool { depth <= 0 && !inMultilineString }

    mutating func scan(_ line: String) {
        let characters = Array(line)
        var index = 0
        func next(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }
        while index < characters.count {
            let character = characters[index]
            if inString {
                if character == "\\" {
                    if next(1) == "(" {
                        interpolations.append(depth)
                        depth += 1
                        inString = false
                    }
                    index += 2
                    continue
                }
                if character == "\"" {
                    if !inMultilineString {
                        inString = false
                    } else if next(1) == "\"", next(2) == "\"" {
                        inString = false
                        inMultilineString = false
                        index += 3
                        continue
                    }
                }
                index += 1
                continue
            }
            if character == "/", next(1) == "/" { break }
            if character == "\"" {
                inString = true
                if next(1) == "\"", next(2) == "\"" {
                    inMultilineString = true
                    index += 3
                    continue
                }
            } else if "([{".contains(character) {
                depth += 1
            } else if ")]}".contains(character) {
                depth -= 1
                if let start = interpolations.last, depth == start {
                    interpolations.removeLast()
                    inString = true
                }
            }
            index += 1
        }
        if inString && !inMultilineString { inString = false }
        if inMultilineString { inString = true }
    }
}
