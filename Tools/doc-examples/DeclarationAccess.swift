import Foundation

/// Whether the declaration a doc comment documents is public, read from the source lines after it.
///
/// A declaration is public when its own modifiers say `public` or `open`; an enum case, or a
/// requirement of a protocol, has the access of the type that holds it.
enum DeclarationAccess {
    /// Whether the declaration starting at `index` (0-based, the line after the comment) is public.
    static func isPublic(declarationAfter index: Int, in lines: [String]) -> Bool {
        var position = index
        while position < lines.count {
            let words = self.words(afterAttributes: lines[position])
            if words.isEmpty {
                position += 1
                continue
            }
            if let explicit = explicitAccess(words) { return explicit }
            let indent = indentation(lines[position])
            guard indent > 0, let holder = holder(of: position, indent: indent, in: lines) else { return false }
            let holderWords = self.words(afterAttributes: lines[holder])
            if words.first == "case" || holderWords.contains("protocol") {
                return explicitAccess(holderWords) ?? isPublic(member: holder, in: lines)
            }
            return false
        }
        return false
    }

    /// A holder without modifiers of its own, nested in another (a protocol inside a public enum is rare
    /// enough that its holder's access decides).
    private static func isPublic(member holder: Int, in lines: [String]) -> Bool {
        let indent = indentation(lines[holder])
        guard indent > 0, let outer = self.holder(of: holder, indent: indent, in: lines) else { return false }
        return explicitAccess(words(afterAttributes: lines[outer])) ?? false
    }

    private static let typeKeywords: Set<String> = ["struct", "enum", "class", "actor", "protocol", "extension"]

    /// The nearest line above `position`, indented less, that declares a type or an extension.
    private static func holder(of position: Int, indent: Int, in lines: [String]) -> Int? {
        var line = position - 1
        while line >= 0 {
            let text = lines[line]
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, !trimmed.hasPrefix("//"), indentation(text) < indent,
                !typeKeywords.isDisjoint(with: words(afterAttributes: text))
            {
                return line
            }
            line -= 1
        }
        return nil
    }

    /// true for `public` or `open`, false for another access modifier, nil when there is none.
    private static func explicitAccess(_ words: [String]) -> Bool? {
        for word in words {
            if word == "public" || word == "open" { return true }
            if ["package", "internal", "private", "fileprivate"].contains(word) { return false }
        }
        return nil
    }

    /// The words of a line after its leading attributes (`@discardableResult`, `@available(…)`), up to
    /// the first `(`, `:`, `{` or `<`.
    private static func words(afterAttributes line: String) -> [String] {
        var trimmed = line.trimmingCharacters(in: .whitespaces)
        for setter in ["private(set)", "fileprivate(set)", "internal(set)", "package(set)"] {
            trimmed = trimmed.replacingOccurrences(of: setter, with: "")
        }
        var text = Substring(trimmed)
        if text.hasPrefix("//") { return [] }
        while text.hasPrefix("@") {
            text = text.drop(while: { !$0.isWhitespace && $0 != "(" })
            if text.hasPrefix("(") {
                var depth = 0
                var end = text.startIndex
                for index in text.indices {
                    if text[index] == "(" { depth += 1 }
                    if text[index] == ")" { depth -= 1 }
                    if depth == 0 {
                        end = text.index(after: index)
                        break
                    }
                }
                text = text[end...]
            }
            text = text.drop(while: { $0.isWhitespace })
        }
        let head = text.prefix(while: { !"(:{<=".contains($0) })
        return head.split(separator: " ").map(String.init)
    }

    private static func indentation(_ line: String) -> Int { line.prefix(while: { $0 == " " }).count }
}
