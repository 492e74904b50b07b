import Foundation

// doc-check: fails when a public symbol in the given symbol graphs has no documentation summary.
//
//     doc-check SYMBOL_GRAPH_DIR...
//
// Reads every `*.symbols.json` file swift-symbolgraph-extract wrote (the module's own graph and its
// extensions of other modules' types). A symbol needs a doc comment whose first paragraph is not empty:
// its own, or the one it inherits from the protocol requirement it implements. Members the compiler
// synthesizes (no source location, or a synthesized identifier) are not counted: there is nowhere to
// write their comment. Exit codes: 0 every symbol has a summary, 1 some lack one, 2 usage or unreadable input.

struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
        struct Identifier: Decodable { let precise: String }
        struct Kind: Decodable { let identifier: String }
        struct Location: Decodable { let uri: String; let position: Position }
        struct Position: Decodable { let line: Int }
        struct DocComment: Decodable {
            struct Line: Decodable { let text: String }
            let lines: [Line]
        }
        let identifier: Identifier
        let kind: Kind
        let pathComponents: [String]
        let location: Location?
        let docComment: DocComment?
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

let arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty, !arguments.contains("--help") else {
    print("usage: doc-check SYMBOL_GRAPH_DIR...\n  fails (exit 1) when a public symbol has no documentation summary")
    exit(arguments.contains("--help") ? 0 : 2)
}

var checked = 0
var problems: [String] = []
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
            guard let reason = missingSummary(symbol), let location = symbol.location else { continue }
            let source = URL(string: location.uri)?.path ?? location.uri
            problems.append("\(source):\(location.position.line + 1): \(symbol.pathComponents.joined(separator: ".")) (\(symbol.kind.identifier)) has \(reason)")
        }
    }
}

if problems.isEmpty {
    print("doc-check: \(checked) public symbols, each with a summary")
} else {
    for problem in problems.sorted() { print(problem) }
    print("doc-check: \(problems.count) of \(checked) public symbols lack a summary")
    exit(1)
}
