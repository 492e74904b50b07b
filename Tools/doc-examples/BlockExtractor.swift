import Foundation

/// A file the tool cannot read as it must: an unterminated block or assumption, or an assumption with
/// no block after it.
struct ExtractionError: Error, CustomStringConvertible {
    let file: String
    let line: Int
    let problem: String

    var description: String { "\(file):\(line): \(problem)" }
}

/// Finds the ```swift blocks of a Swift file's `///` doc comments and of a DocC article.
///
/// A block may be preceded, on the lines right before its fence, by an HTML comment that DocC does not
/// render, holding the code the block assumes (declarations it uses without showing them):
///
///     /// <!-- assume: let focus = Exclusive<Pane>("focus", in: suite) -->
///     /// ```swift
///     /// if try focus.claim(.editor, ifCurrent: nil) != nil { startEditing() }
///     /// ```
enum BlockExtractor {
    /// The folders whose public declarations a user of a library product sees (ConcordStore and
    /// ConcordSync are layers of module Concord).
    static let productModules: Set<String> = ["Concord", "ConcordStore", "ConcordSync", "ConcordTesting", "ConcordHub"]

    /// The blocks of the doc comments of a Swift source file of `module`.
    static func blocks(inSwiftFile file: String, text: String, module: String) throws -> [ExampleBlock] {
        let lines = text.components(separatedBy: "\n")
        var blocks: [ExampleBlock] = []
        var index = 0
        while index < lines.count {
            guard docText(lines[index]) != nil else {
                index += 1
                continue
            }
            let start = index
            while index < lines.count, docText(lines[index]) != nil { index += 1 }
            let run = (start..<index).map { SourceLine(number: $0 + 1, text: docText(lines[$0])!) }
            let isPublic = productModules.contains(module) && DeclarationAccess.isPublic(declarationAfter: index, in: lines)
            blocks += try self.blocks(in: run, file: file, module: module, isPublic: isPublic)
        }
        return blocks
    }

    /// The blocks of a DocC article (Markdown) of `module`'s catalog: all of them are public.
    static func blocks(inArticle file: String, text: String, module: String) throws -> [ExampleBlock] {
        let lines = text.components(separatedBy: "\n").enumerated().map { SourceLine(number: $0.offset + 1, text: $0.element) }
        return try blocks(in: lines, file: file, module: module, isPublic: true)
    }

    /// The text of a `///` line after its marker and the one space that follows it, or nil for any other line.
    static func docText(_ line: String) -> String? {
        let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
        guard trimmed.hasPrefix("///"), !trimmed.hasPrefix("////") else { return nil }
        let text = trimmed.dropFirst(3)
        return String(text.hasPrefix(" ") ? text.dropFirst() : text)
    }

    private static func blocks(in lines: [SourceLine], file: String, module: String, isPublic: Bool) throws -> [ExampleBlock] {
        var blocks: [ExampleBlock] = []
        var claimedAssumptions = Set<Int>()
        var index = 0
        while index < lines.count {
            let fence = lines[index]
            let indent = fence.text.prefix(while: { $0 == " " }).count
            guard fence.text.dropFirst(indent).trimmingCharacters(in: .whitespaces) == "```swift" else {
                index += 1
                continue
            }
            let fencePosition = index
            var code: [SourceLine] = []
            index += 1
            while index < lines.count, lines[index].text.trimmingCharacters(in: .whitespaces) != "```" {
                let text = lines[index].text
                let own = text.prefix(while: { $0 == " " }).count
                code.append(SourceLine(number: lines[index].number, text: String(text.dropFirst(min(own, indent)))))
                index += 1
            }
            guard index < lines.count else {
                throw ExtractionError(file: file, line: fence.number, problem: "this ```swift block has no closing ``` in its comment")
            }
            let assumption = try assumptions(before: lines[..<fencePosition], file: file)
            if let first = assumption.first { claimedAssumptions.insert(first.number) }
            blocks.append(
                ExampleBlock(
                    file: file, fenceLine: fence.number, closingLine: lines[index].number, lines: code,
                    assumptions: assumption.code, module: module, isPublic: isPublic))
            index += 1
        }
        // An assumption that no block follows would silently assume nothing: say where it is.
        for line in lines where line.text.contains("<!-- assume:") && !claimedAssumptions.contains(line.number) {
            throw ExtractionError(file: file, line: line.number, problem: "this <!-- assume: … --> comment is not right before a ```swift block")
        }
        return blocks
    }

    /// The `<!-- assume: … -->` comment ending on the last of `lines` (those before a fence): the line
    /// it starts on and its code.
    private static func assumptions(before lines: ArraySlice<SourceLine>, file: String) throws -> (first: SourceLine?, code: [SourceLine]) {
        guard let last = lines.last, last.text.trimmingCharacters(in: .whitespaces).hasSuffix("-->") else { return (nil, []) }
        guard let opening = lines.lastIndex(where: { $0.text.contains("<!--") }) else {
            throw ExtractionError(file: file, line: last.number, problem: "this --> closes no <!-- comment")
        }
        let start = lines[opening]
        guard let marker = start.text.range(of: "<!-- assume:") else { return (nil, []) }
        var code: [SourceLine] = []
        for line in lines[opening...] {
            var text = line.number == start.number ? String(start.text[marker.upperBound...]) : line.text
            if line.number == last.number, let end = text.range(of: "-->", options: .backwards) { text = String(text[..<end.lowerBound]) }
            if !text.trimmingCharacters(in: .whitespaces).isEmpty { code.append(SourceLine(number: line.number, text: text)) }
        }
        return (start, code)
    }
}
