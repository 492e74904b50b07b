import ChildProcesses
import Foundation

/// Builds the context modules, writes the examples' files and compiles them all in one compiler run.
struct ExampleCompiler {
    /// A block the compiler refused, with the first error it named in it.
    struct Failure {
        let block: ExampleBlock
        let firstError: String
    }

    /// The compiler could not be run, or a context module did not compile.
    struct ToolError: Error, CustomStringConvertible {
        let description: String
    }

    let swiftc: String
    let modules: String
    let context: String
    let work: String
    let searchPaths: [String]
    let clangArguments: [String]

    /// The context modules: the names public examples assume, and those the others assume.
    static let contextModules = ["DocExamplesContext", "DocExamplesInternalContext"]

    /// Compiles `files`; returns the blocks that do not compile, in file order.
    func compile(_ files: [ExampleFile]) throws -> [Failure] {
        let manager = FileManager.default
        try? manager.removeItem(atPath: work)
        let examples = work + "/examples"
        try manager.createDirectory(atPath: examples, withIntermediateDirectories: true)
        for name in Self.contextModules { try buildContext(name) }

        var written: [String: ExampleFile] = [:]
        for (index, file) in files.enumerated() {
            let path = examples + "/" + String(format: "%04d", index) + ".swift"
            try file.source.write(toFile: path, atomically: true, encoding: .utf8)
            written[path] = file
        }
        let (status, output) = try run(
            common + ["-typecheck", "-wmo", "-module-name", "DocExamples", "-suppress-warnings"] + written.keys.sorted())
        if status == 0 { return [] }
        print(output)

        var failures: [Failure] = []
        var failed = Set<String>()
        for error in Self.errors(in: output) {
            let block: ExampleBlock?
            if let file = written[error.file] {
                block = file.blocks.first
            } else {
                block = files.lazy.flatMap(\.blocks).first { $0.file == error.file && $0.contains(line: error.line) }
            }
            guard let block else { continue }
            if failed.insert("\(block.file):\(block.fenceLine)").inserted { failures.append(Failure(block: block, firstError: error.message)) }
        }
        if failures.isEmpty { throw ToolError(description: "the compiler failed (status \(status)) outside every example; its output is above") }
        return failures
    }

    private var common: [String] {
        var arguments = ["-swift-version", "6", "-parse-as-library", "-package-name", "docexamples", "-enable-upcoming-feature", "MemberImportVisibility"]
        for path in [work + "/context", modules] + searchPaths { arguments += ["-I", path] }
        for argument in clangArguments { arguments += ["-Xcc", argument] }
        return arguments
    }

    private func buildContext(_ name: String) throws {
        let folder = context + "/" + name
        let sources = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }.sorted().map { folder + "/" + $0 }
        let (status, output) = try run(
            common + ["-emit-module", "-module-name", name, "-emit-module-path", work + "/context/\(name).swiftmodule", "-suppress-warnings"] + sources)
        guard status == 0 else { throw ToolError(description: "the context module \(name) (\(folder)) does not compile:\n\(output)") }
    }

    /// Runs the compiler (at most 10 minutes); its status, and its output and errors together.
    private func run(_ arguments: [String]) throws -> (Int32, String) {
        let child: ChildProcess
        do { child = try ChildProcess("/usr/bin/env", [swiftc] + arguments) } catch {
            throw ToolError(description: "cannot run \(swiftc): \(error)")
        }
        let result = child.wait(timeout: 600)
        if result.timedOut { throw ToolError(description: "\(swiftc) ran for 10 minutes and was killed") }
        return (result.signaled ? 128 + result.status : result.status, result.stdout + result.stderr)
    }

    /// The `FILE:LINE:COLUMN: error: MESSAGE` lines of the compiler's output.
    static func errors(in output: String) -> [(file: String, line: Int, message: String)] {
        output.split(separator: "\n").compactMap { line in
            guard let marker = line.range(of: ": error: ") else { return nil }
            let location = line[..<marker.lowerBound].split(separator: ":")
            guard location.count >= 3, let number = Int(location[location.count - 2]) else { return nil }
            return (location.dropLast(2).joined(separator: ":"), number, String(line[marker.upperBound...]))
        }
    }
}
