/// A line of an example with the line of the source file it came from.
struct SourceLine: Equatable {
    let number: Int
    let text: String
}

/// One ```swift code block of a doc comment or an article, with what it declares it assumes.
struct ExampleBlock {
    /// The file it was found in, as the tool was given it.
    let file: String
    /// The line of its opening fence.
    let fenceLine: Int
    /// The line of its closing fence.
    let closingLine: Int
    /// Its code, without the comment markers.
    let lines: [SourceLine]
    /// The code of the `<!-- assume: … -->` comment before its fence, run before the block.
    let assumptions: [SourceLine]
    /// The module the file belongs to (the folder under `Sources`).
    let module: String
    /// Whether it documents what a user of the library sees: a public declaration of a library product,
    /// or an article. Anything else is compiled with `@testable import` of its module.
    let isPublic: Bool

    /// Whether a line of `file` belongs to this block (its assumptions, fences or code).
    func contains(line: Int) -> Bool {
        let first = assumptions.first?.number ?? fenceLine
        return (first...closingLine).contains(line)
    }
}
