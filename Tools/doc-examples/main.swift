import Foundation

// doc-examples: compiles every ```swift block of the `///` doc comments and DocC articles it is given,
// against the built modules, in one compile, and names the file:line of each block that does not compile.
//
//     doc-examples --modules BIN/Modules --context DIR --work DIR [--swiftc PATH] [-I DIR]... [-Xcc ARG]... PATH...
//
// PATH is a folder (searched for `*.swift` files and the `*.md` articles of `*.docc` catalogs) or a file
// (a Markdown file outside a catalog, such as the README, compiles as an article does);
// the module of a file is the folder under `Sources` it is in. Each block compiles as the body of an
// async throwing function (see ExampleFile): the public declarations of the library products (and the
// articles) with the imports a user has, anything else with `@testable` imports. Names a block uses
// without declaring come from the context modules built from DIR/DocExamplesContext (for public
// examples) and DIR/DocExamplesInternalContext, or from the block's own `<!-- assume: … -->` comment
// (see BlockExtractor). Exit codes: 0 every block compiles, 1 a block does not (or a comment is
// malformed), 2 usage, unreadable input or a context that does not compile.

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("doc-examples: \(message)\n".utf8))
    exit(code)
}

var modules: String?
var context: String?
var work: String?
var swiftc = "swiftc"
var searchPaths: [String] = []
var clangArguments: [String] = []
var paths: [String] = []
var arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: doc-examples --modules DIR --context DIR --work DIR [--swiftc PATH] [-I DIR]... [-Xcc ARG]... PATH..."
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else { fail("\(argument) needs a value\n\(usage)", code: 2) }
        return arguments.removeFirst()
    }
    switch argument {
    case "--help":
        print(usage)
        exit(0)
    case "--modules": modules = value()
    case "--context": context = value()
    case "--work": work = value()
    case "--swiftc": swiftc = value()
    case "-I": searchPaths.append(value())
    case "-Xcc": clangArguments.append(value())
    default:
        if argument.hasPrefix("-") { fail("unknown option \(argument)\n\(usage)", code: 2) }
        paths.append(argument)
    }
}
guard let modules, let context, let work, !paths.isEmpty else { fail(usage, code: 2) }

let started = Date()
let sources: [String]
do { sources = try SourceFiles.find(in: paths) } catch { fail("\(error)", code: 2) }

var files: [ExampleFile] = []
var blockCount = 0
do {
    for path in sources {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let module = SourceFiles.module(of: path)
        if path.hasSuffix(".md") {
            let blocks = try BlockExtractor.blocks(inArticle: path, text: text, module: module)
            if !blocks.isEmpty { files.append(ExampleFile(blocks: blocks)) }
            blockCount += blocks.count
        } else {
            let blocks = try BlockExtractor.blocks(inSwiftFile: path, text: text, module: module)
            files += blocks.map { ExampleFile(blocks: [$0]) }
            blockCount += blocks.count
        }
    }
} catch let error as ExtractionError {
    print(error)
    fail("a doc comment or article is malformed", code: 1)
} catch {
    fail("cannot read a source: \(error)", code: 2)
}

let compiler = ExampleCompiler(
    swiftc: swiftc, modules: modules, context: context, work: work, searchPaths: searchPaths, clangArguments: clangArguments)
let failures: [ExampleCompiler.Failure]
do { failures = try compiler.compile(files) } catch { fail("\(error)", code: 2) }
let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
if failures.isEmpty {
    let documented = Set(files.flatMap(\.blocks).map(\.file)).count
    print("doc-examples: \(blockCount) blocks of \(documented) files compile against the built modules (\(seconds) s)")
} else {
    for failure in failures { print("\(failure.block.file):\(failure.block.fenceLine): this example does not compile: \(failure.firstError)") }
    print("doc-examples: \(failures.count) of \(blockCount) blocks do not compile")
    print("  (a block declares what it uses without showing it in a <!-- assume: … --> comment on the lines before its fence;")
    print("  the names every example may use are in \(context))")
    exit(1)
}
