import Foundation

// api-surface: lists the public types of library modules from their symbol graphs, keeps that list in
// the architecture document, and fails when a module's count passes its bound.
//
//     api-surface [--write] --document FILE MODULE_GRAPH_DIR=MAX_TYPES,MAX_ERROR_TYPES...
//
// A public type is a public struct, class, enum, protocol or actor (nested ones too) or a top-level
// public typealias; a typealias inside a type (an `AsyncSequence`'s `Element`) names a type the list
// already holds or a standard one, and is not counted. An error type is a listed type that conforms to
// `Error`. The list lives in FILE between the lines `<!-- public-surface:begin -->` and
// `<!-- public-surface:end -->`: with --write it is rewritten there, without it the list there must be
// exactly the one the graphs give. A bound is a ratchet: more types than the bound fails, and fewer
// fails too until the bound is lowered to the count (so a type removed cannot quietly come back).
// Exit codes: 0 the list matches and every count is at its bound, 1 it does not, 2 usage or unreadable input.

struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
        struct Identifier: Decodable { let precise: String }
        struct Kind: Decodable { let identifier: String }
        let identifier: Identifier
        let kind: Kind
        let pathComponents: [String]
        let accessLevel: String
    }
    struct Relationship: Decodable {
        let kind: String
        let source: String
        let target: String
    }
    struct Module: Decodable { let name: String }
    let module: Module
    let symbols: [Symbol]
    let relationships: [Relationship]
}

/// One module's public types, from its own graph (not its extensions of other modules' types).
struct Surface {
    let module: String
    let types: [String]
    let errorTypes: [String]

    static let nominalKinds: Set<String> = ["swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor"]

    init(graph: SymbolGraph) {
        module = graph.module.name
        let counted = graph.symbols.filter { symbol in
            guard symbol.accessLevel == "public" || symbol.accessLevel == "open" else { return false }
            return Self.nominalKinds.contains(symbol.kind.identifier)
                || (symbol.kind.identifier == "swift.typealias" && symbol.pathComponents.count == 1)
        }
        let errors = Set(graph.relationships.filter { $0.kind == "conformsTo" && $0.target == "s:s5ErrorP" }.map(\.source))
        types = counted.map { $0.pathComponents.joined(separator: ".") }.sorted()
        errorTypes = counted.filter { errors.contains($0.identifier.precise) }.map { $0.pathComponents.joined(separator: ".") }.sorted()
    }

    /// The module's lines of the document's list: a summary, then the types, wrapped.
    var lines: [String] {
        let errors = errorTypes.isEmpty ? "none of them errors" : "\(errorTypes.count) of them errors (\(errorTypes.joined(separator: ", ")))"
        var out = ["- `\(module)`: \(types.count) public types, \(errors):"]
        var line = " "
        for (index, type) in types.enumerated() {
            let word = " `\(type)`" + (index == types.count - 1 ? "." : ",")
            if line.count + word.count > 100 {
                out.append(line)
                line = " "
            }
            line += word
        }
        return out + [line]
    }
}

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("api-surface: \(message)\n".utf8))
    exit(code)
}

let usage = "usage: api-surface [--write] --document FILE MODULE_GRAPH_DIR=MAX_TYPES,MAX_ERROR_TYPES..."
var arguments = Array(CommandLine.arguments.dropFirst())
var write = false
var document: String?
var modules: [(directory: String, maxTypes: Int, maxErrors: Int)] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--help":
        print(usage)
        exit(0)
    case "--write": write = true
    case "--document":
        guard !arguments.isEmpty else { fail("--document needs a file\n\(usage)", code: 2) }
        document = arguments.removeFirst()
    default:
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        let bounds = parts.count == 2 ? parts[1].split(separator: ",").compactMap { Int($0) } : []
        guard parts.count == 2, bounds.count == 2 else { fail("\(argument) is not MODULE_GRAPH_DIR=MAX_TYPES,MAX_ERROR_TYPES\n\(usage)", code: 2) }
        modules.append((parts[0], bounds[0], bounds[1]))
    }
}
guard let document, !modules.isEmpty else { fail(usage, code: 2) }

var surfaces: [Surface] = []
for module in modules {
    let name = URL(fileURLWithPath: module.directory).lastPathComponent
    let path = (module.directory as NSString).appendingPathComponent("\(name).symbols.json")
    do {
        surfaces.append(Surface(graph: try JSONDecoder().decode(SymbolGraph.self, from: Data(contentsOf: URL(fileURLWithPath: path)))))
    } catch {
        fail("cannot read the symbol graph \(path) (run swift-symbolgraph-extract first): \(error)", code: 2)
    }
}

let begin = "<!-- public-surface:begin -->"
let end = "<!-- public-surface:end -->"
guard let text = try? String(contentsOfFile: document, encoding: .utf8) else { fail("cannot read \(document)", code: 2) }
guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else {
    fail("\(document) has no list between \(begin) and \(end)", code: 2)
}
let generated = "\n" + surfaces.flatMap(\.lines).joined(separator: "\n") + "\n"
var problems: [String] = []
if write {
    let updated = text.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: generated)
    do { try updated.write(toFile: document, atomically: true, encoding: .utf8) } catch { fail("cannot write \(document): \(error)", code: 2) }
} else if String(text[start.upperBound..<stop.lowerBound]) != generated {
    problems.append("the public surface listed in \(document) is not the symbol graphs' (run `make surface` to rewrite the list)")
}
for (surface, module) in zip(surfaces, modules) {
    for (count, bound, noun, names) in [
        (surface.types.count, module.maxTypes, "public types", surface.types),
        (surface.errorTypes.count, module.maxErrors, "public error types", surface.errorTypes)
    ] {
        if count > bound {
            problems.append(
                "\(surface.module) has \(count) \(noun), more than its bound of \(bound): make one of them package or internal (\(names.joined(separator: ", ")))"
            )
        } else if count < bound {
            problems.append(
                "\(surface.module) has \(count) \(noun), fewer than its bound of \(bound): lower the bound to \(count) in Scripts/docs.sh (it only goes down)")
        }
    }
}
if problems.isEmpty {
    print("api-surface: " + surfaces.map { "\($0.module) \($0.types.count) public types (\($0.errorTypes.count) errors)" }.joined(separator: ", "))
} else {
    for problem in problems { print(problem) }
    exit(1)
}
