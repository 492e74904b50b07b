import Foundation

/// The Swift file one doc comment's block, or one article's blocks, compile in.
///
/// The code runs in a throwing function, `async` when the code awaits, so a fragment may `try` and
/// `await`; an article's blocks nest, each in a local function at the end of the one before it, so a
/// block uses what the earlier ones declared and may declare the same names again. A block that declares something Swift allows only
/// at file scope (an extension, a protocol, an `@Observable` class, an import, a `@Test` function) has
/// its types, extensions and test functions placed there instead, each type and extension
/// `fileprivate` unless it says otherwise. `#sourceLocation`
/// directives make the compiler name the lines of the comment or article, not of this file.
struct ExampleFile {
    let blocks: [ExampleBlock]
    /// The modules every example may use without importing them.
    static let toolchainImports = ["Foundation", "Observation", "Synchronization", "Testing"]

    /// The imports of the file: the toolchain's, the library products a user of the documented module
    /// has (or `@testable` imports of every module, for a non-public declaration), the assumed context.
    var imports: [String] {
        var imports = Self.toolchainImports.map { "import \($0)" }
        let isPublic = blocks.allSatisfy(\.isPublic)
        if isPublic {
            imports.append("import Concord")
            let module = blocks.first?.module ?? "Concord"
            if module == "ConcordTesting" || module == "ConcordHub" { imports.append("import \(module)") }
            imports.append("import DocExamplesContext")
        } else {
            imports += ["CLMDB", "LMDB", "Sodium", "Concord", "ConcordTesting", "ConcordHub", "SyncToolCore"].map {
                $0 == "CLMDB" ? "import CLMDB" : "@testable import \($0)"
            }
            imports.append("import DocExamplesInternalContext")
        }
        return imports
    }

    /// The file's text.
    var source: String {
        var fileScope: [[SourceLine]] = []
        var bodies: [(assumptions: [SourceLine], code: [SourceLine])] = []
        var imported = Set(imports)
        var importLines: [String] = imports
        for block in blocks {
            let chunks = CodeChunk.split(block.lines)
            let hoisting = chunks.contains(where: \.needsFileScope)
            var code: [SourceLine] = []
            for chunk in chunks {
                switch chunk.kind {
                case .importDeclaration:
                    for line in chunk.lines {
                        let text = line.text.trimmingCharacters(in: .whitespaces)
                        if text.hasPrefix("import"), imported.insert(text).inserted { importLines.append(text) }
                    }
                case .typeDeclaration where hoisting:
                    fileScope.append(chunk.madeFilePrivate())
                case .testFunction:
                    fileScope.append(chunk.lines)
                default:
                    code += chunk.lines
                }
            }
            bodies.append((block.assumptions, code))
        }
        var out = ["// doc-examples: \(blocks.map { "\($0.file):\($0.fenceLine)" }.joined(separator: ", "))"]
        out += importLines
        for lines in fileScope { out += located(lines) }
        for (index, body) in bodies.enumerated() {
            let effects = Self.awaits(body.assumptions + body.code) ? "async throws" : "throws"
            out.append(index == 0 ? "private func example() \(effects) {" : "func block\(index)() \(effects) {")
            out += located(body.assumptions)
            out += located(body.code)
        }
        out += Array(repeating: "}", count: bodies.count)
        return out.joined(separator: "\n") + "\n"
    }

    /// Whether code awaits (so it needs an async function; in one, Swift picks the async form of a call
    /// that has both, which the code's unmarked synchronous calls are not).
    static func awaits(_ lines: [SourceLine]) -> Bool {
        lines.contains { $0.text.range(of: #"\b(await|async)\b"#, options: .regularExpression) != nil }
    }

    /// Lines preceded by `#sourceLocation` at each jump in their line numbers, then reset.
    private func located(_ lines: [SourceLine]) -> [String] {
        guard !lines.isEmpty, let file = blocks.first?.file else { return [] }
        var out: [String] = []
        var expected: Int?
        for line in lines {
            if line.number != expected { out.append("#sourceLocation(file: \"\(file)\", line: \(line.number))") }
            out.append(line.text)
            expected = line.number + 1
        }
        out.append("#sourceLocation()")
        return out
    }
}
