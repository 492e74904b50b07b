import Concord
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Each CLI error says what happened, in the right words, on one line of standard error.
@Suite("sync-tool errors: the right words, one line", .offThePool)
struct ErrorWordsTests {
    let tmp: TemporaryDirectory
    let dir: String

    init() throws {
        tmp = try TemporaryDirectory("concord-error-words")
        dir = tmp.path("replica")
        let store = try Store(path: dir)
        try store.suite("app").set("dark", forKey: "theme")
    }

    func expectOneLine(_ result: ProcessResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.stderr.split(separator: "\n").count == 1, "\(what): one line on stderr: \(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test("a failed export says nothing was exported (not imported)")
    func failedExport() throws {
        let result = try run("sync-tool", ["export", dir, "--out", tmp.path("missing/dir/out.bundle")])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("nothing was exported") && !result.stderr.contains("import"), "\(result.stderr)")
        expectOneLine(result, "export")
    }

    @Test("import from /dev/null says the input is empty, not to check its permissions; a missing file or a directory says what it is")
    func importFromDevNull() throws {
        let result = try run("sync-tool", ["import", dir, "/dev/null"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("empty") && !result.stderr.contains("permissions"), "\(result.stderr)")
        expectOneLine(result, "import /dev/null")
        let missing = try run("sync-tool", ["import", dir, tmp.path("nope.bundle")])
        #expect(missing.status == 3 && missing.stderr.contains("does not exist"), "\(missing.stderr)")
        expectOneLine(missing, "import of a missing file")
        let directory = try run("sync-tool", ["import", dir, tmp.root])
        #expect(directory.status == 3 && directory.stderr.contains("directory"), "\(directory.stderr)")
        expectOneLine(directory, "import of a directory")
    }

    @Test("import reads a bundle from a FIFO (as from <(…)); garbage through one is refused as not a bundle")
    func importFromFIFO() throws {
        let source = try Store(path: tmp.path("source"))
        try source.suite("app").set("from a pipe", forKey: "piped")
        let bundle = tmp.path("source.bundle")
        #expect(try run("sync-tool", ["export", source.directory, "--out", bundle]).status == 0)
        let fifo = tmp.path("bundle.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Bounded: a reader that opens the FIFO twice would wait for a second writer forever.
        let piped = try run("/bin/sh", ["-c", "cat \"$1\" > \"$2\" & timeout 30 \"$0\" import \"$3\" \"$2\"", Binaries.path("sync-tool"), bundle, fifo, dir])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try Store(path: dir).suite("app").get("piped", as: String.self) == "from a pipe")
        let garbage = try run(
            "/bin/sh", ["-c", "echo 'not a bundle at all' > \"$1\" & timeout 30 \"$0\" import \"$2\" \"$1\"", Binaries.path("sync-tool"), fifo, dir])
        #expect(garbage.status == 3, "\(garbage.stderr)")
        #expect(!garbage.stderr.contains("permissions") && garbage.stderr.contains("nothing was imported"), "\(garbage.stderr)")
        expectOneLine(garbage, "import garbage from a FIFO")
    }
}
