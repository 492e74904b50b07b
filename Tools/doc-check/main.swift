import Foundation

// doc-check: fails when a public symbol in the given symbol graphs has no documentation summary.
//
//     doc-check SYMBOL_GRAPH_DIR...
//
// Reads every `*.symbols.json` file swift-symbolgraph-extract wrote (the module's own graph and its
// extensions of other modules' types). A symbol needs a doc comment whose first paragraph is not empty:
// its own, or the one it inherits from the protocol requirement it implements. Members the compiler
// synthesizes (no source location, or a synthesized identifier) are not counted: there is nowhere to
// write their comment. The important symbols (`ImportantSymbols.paths`) also need a `- Parameters`
// (or `- Parameter`) section when they take arguments, `- Returns` when they return a value, and
// `- Throws` when they throw. Exit codes: 0 all present, 1 something missing, 2 usage or unreadable input.

struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
        struct Identifier: Decodable { let precise: String }
        struct Kind: Decodable { let identifier: String }
        struct Location: Decodable {
            let uri: String
            let position: Position
        }
        struct Position: Decodable { let line: Int }
        struct DocComment: Decodable {
            struct Line: Decodable { let text: String }
            let lines: [Line]
        }
        struct Fragment: Decodable {
            let kind: String
            let spelling: String
        }
        struct FunctionSignature: Decodable {
            struct Parameter: Decodable { let name: String }
            let parameters: [Parameter]?
            let returns: [Fragment]?
        }
        let identifier: Identifier
        let kind: Kind
        let pathComponents: [String]
        let location: Location?
        let docComment: DocComment?
        let declarationFragments: [Fragment]?
        let functionSignature: FunctionSignature?

        var path: String { pathComponents.joined(separator: ".") }
    }
    struct Module: Decodable { let name: String }
    let module: Module
    let symbols: [Symbol]
}

/// Why a symbol has no usable summary, or nil when it has one (or needs none).
func missingSummary(_ symbol: SymbolGraph.Symbol) -> String? {
    if symbol.identifier.precise.contains("::SYNTHESIZED::") || symbol.location == nil { return nil }
    guard let comment = symbol.docComment else { return "no doc comment" }
    let firstLine = comment.lines.first(where: { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty })?.text ?? ""
    let trimmed = firstLine.trimmingCharacters(in: .whitespaces)
    if trimmed.isEmpty { return "an empty doc comment" }
    if trimmed.hasPrefix("- ") || trimmed.hasPrefix("```") { return "a doc comment without a summary before its sections or code" }
    return nil
}

/// Whether a declaration throws itself: a `throws` or `rethrows` after its parameter list, not one
/// inside the type of a closure parameter.
func throwsItself(_ fragments: [SymbolGraph.Symbol.Fragment]) -> Bool {
    var depth = 0
    var seenParameters = false
    for fragment in fragments {
        if fragment.kind == "keyword", ["throws", "rethrows"].contains(fragment.spelling), depth == 0, seenParameters { return true }
        guard fragment.kind == "text" else { continue }
        for character in fragment.spelling {
            if character == "(" {
                depth += 1
                seenParameters = true
            }
            if character == ")" { depth -= 1 }
        }
    }
    return false
}

/// The sections an important symbol lacks (empty when it has them all, or is not important).
func missingSections(_ symbol: SymbolGraph.Symbol) -> [String] {
    guard ImportantSymbols.paths.contains(symbol.path), let comment = symbol.docComment else { return [] }
    let text = comment.lines.map(\.text).joined(separator: "\n")
    var missing: [String] = []
    let signature = symbol.functionSignature
    if !(signature?.parameters ?? []).isEmpty, !text.contains("- Parameter") { missing.append("- Parameters") }
    let returned = (signature?.returns ?? []).map(\.spelling).joined()
    if symbol.kind.identifier != "swift.init", !["", "()", "Void"].contains(returned), !text.contains("- Returns") { missing.append("- Returns") }
    if throwsItself(symbol.declarationFragments ?? []), !text.contains("- Throws") { missing.append("- Throws") }
    return missing
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty, !arguments.contains("--help") else {
    print("usage: doc-check SYMBOL_GRAPH_DIR...\n  fails (exit 1) when a public symbol has no documentation summary")
    exit(arguments.contains("--help") ? 0 : 2)
}

var checked = 0
var problems: [String] = []
var importantSeen = Set<String>()
for directory in arguments {
    let files: [String]
    do { files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".symbols.json") }.sorted() } catch {
        FileHandle.standardError.write(Data("doc-check: cannot read the symbol graph directory \(directory): \(error.localizedDescription)\n".utf8))
        exit(2)
    }
    if files.isEmpty {
        FileHandle.standardError.write(Data("doc-check: \(directory) holds no *.symbols.json file (run swift-symbolgraph-extract first)\n".utf8))
        exit(2)
    }
    for file in files {
        let path = (directory as NSString).appendingPathComponent(file)
        let graph: SymbolGraph
        do { graph = try JSONDecoder().decode(SymbolGraph.self, from: Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            FileHandle.standardError.write(Data("doc-check: \(path) is not a symbol graph: \(error)\n".utf8))
            exit(2)
        }
        for symbol in graph.symbols {
            checked += 1
            guard let location = symbol.location, !symbol.identifier.precise.contains("::SYNTHESIZED::") else { continue }
            let source = URL(string: location.uri)?.path ?? location.uri
            if let reason = missingSummary(symbol) {
                problems.append("\(source):\(location.position.line + 1): \(symbol.path) (\(symbol.kind.identifier)) has \(reason)")
            }
            if ImportantSymbols.paths.contains(symbol.path) { importantSeen.insert(symbol.path) }
            let sections = missingSections(symbol)
            if !sections.isEmpty {
                problems.append("\(source):\(location.position.line + 1): \(symbol.path) is an important symbol without \(sections.joined(separator: ", "))")
            }
        }
    }
}

// A name on the list that matches nothing is a renamed symbol the list must follow (checked only for the
// modules the list covers, when their graphs were given).
let modulesGiven = Set(arguments.map { URL(fileURLWithPath: $0).lastPathComponent })
for path in ImportantSymbols.paths.subtracting(importantSeen).sorted() where modulesGiven.isSuperset(of: ImportantSymbols.modules) {
    problems.append("ImportantSymbols.paths names \(path), which no symbol graph holds (renamed? update Tools/doc-check/ImportantSymbols.swift)")
}

if problems.isEmpty {
    print("doc-check: \(checked) public symbols, each with a summary; the \(importantSeen.count) important ones with their sections")
} else {
    for problem in problems.sorted() { print(problem) }
    print("doc-check: \(problems.count) problems in \(checked) public symbols")
    exit(1)
}
