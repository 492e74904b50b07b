import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

/// `sync-tool completions bash|zsh`: scripts generated from the command specs, that the shells accept
/// and that complete every command, option, value choice and directory.
@Suite("sync-tool completions", .offThePool)
struct CompletionsCommandTests {
    let tmp: TemporaryDirectory
    init() throws { tmp = try TemporaryDirectory("concord-completions") }

    func script(_ shell: String) throws -> String {
        let printed = Invocation(["completions", shell])
        #expect(printed.status == 0, "\(printed.err)")
        let path = tmp.path("sync-tool.\(shell)")
        try Data(printed.out.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// What bash's completion offers for the command line `words` (the last one being typed).
    func bashCompletes(_ script: String, _ words: [String]) throws -> [String] {
        let driver = tmp.path("driver.sh")
        try Data(
            """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
            _sync_tool
            printf '%s\\n' "${COMPREPLY[@]}"
            """.utf8
        ).write(to: URL(fileURLWithPath: driver))
        let outcome = try run("/bin/bash", [driver, script] + words)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        return outcome.lines
    }

    @Test func everyCommandAndOptionOfEverySpecIsInBothScripts() throws {
        defer { tmp.remove() }
        for shell in ["bash", "zsh"] {
            let text = try String(contentsOfFile: try script(shell), encoding: .utf8)
            for command in SyncTool.commands {
                let spec = command.spec
                #expect(text.contains("'\(spec.name)'"), "\(shell): command \(spec.name)")
                for option in spec.options { #expect(text.contains("--\(option.name)"), "\(shell): \(spec.name) --\(option.name)") }
                for flag in spec.flags { #expect(text.contains("--\(flag.name)"), "\(shell): \(spec.name) --\(flag.name)") }
                for option in spec.options where !option.choices.isEmpty {
                    #expect(text.contains(option.choices.joined(separator: " ")), "\(shell): choices of \(spec.name) --\(option.name)")
                }
            }
        }
    }

    @Test func bashAcceptsTheScriptAndCompletesFromTheSpecs() throws {
        defer { tmp.remove() }
        let path = try script("bash")
        let syntax = try run("/bin/bash", ["-n", path])
        #expect(syntax.status == 0, "bash -n: \(syntax.stderr)")

        let names = SyncTool.commands.map { $0.spec.name }
        #expect(try bashCompletes(path, ["sync-tool", ""]).sorted() == (names + ["--help", "-h", "--version", "-V"]).sorted())
        #expect(try bashCompletes(path, ["sync-tool", "co"]) == ["conflicts", "completions"].filter { names.contains($0) })
        // Every command offers exactly the options and flags its spec declares.
        for command in SyncTool.commands {
            let spec = command.spec
            let expected = spec.options.map { "--" + $0.name } + spec.flags.map { "--" + $0.name } + ["--help", "-h"]
            #expect(try bashCompletes(path, ["sync-tool", spec.name, "-"]).sorted() == expected.sorted(), "\(spec.name)")
        }
        // Value choices a spec lists.
        #expect(try bashCompletes(path, ["sync-tool", "set", "d", "s", "k", "v", "--type", ""]) == ValueText.types)
        #expect(try bashCompletes(path, ["sync-tool", "set", "d", "s", "k", "v", "--type", "=", "d"]) == ["double", "data", "date"])
        #expect(try bashCompletes(path, ["sync-tool", "hub", ""]) == ["init", "add-account", "set-quota", "stats", "gc"])
        #expect(try bashCompletes(path, ["sync-tool", "completions", "z"]) == ["zsh"])
        #expect(try bashCompletes(path, ["sync-tool", "--version", "-"]) == ["--json"])

        // Directories for DIR arguments (not files); files for FILE.
        let base = tmp.path("pick")
        try FileManager.default.createDirectory(atPath: base + "-dir", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: base + "-file"))
        #expect(try bashCompletes(path, ["sync-tool", "stat", base]) == [base + "-dir"])
        #expect(try bashCompletes(path, ["sync-tool", "backup", "somewhere", base]) == [base + "-dir"], "DEST is a directory")
        #expect(try bashCompletes(path, ["sync-tool", "import", "d", base]).sorted() == [base + "-dir", base + "-file"])
        // Options and their values are not counted as arguments.
        #expect(try bashCompletes(path, ["sync-tool", "gc", "--retention", "3", base]) == [base + "-dir"])
        #expect(try bashCompletes(path, ["sync-tool", "export", "d", "--out", base]).sorted() == [base + "-dir", base + "-file"])
        #expect(try bashCompletes(path, ["sync-tool", "set", "--type", "int", base]) == [base + "-dir"])
        #expect(try bashCompletes(path, ["sync-tool", "set", "d", ""]).isEmpty, "a suite name is free text")
    }

    @Test func zshAcceptsTheScriptAndRegistersIt() throws {
        defer { tmp.remove() }
        let path = try script("zsh")
        let syntax = try run("/usr/bin/zsh", ["-n", path])
        #expect(syntax.status == 0, "zsh -n: \(syntax.stderr)")
        let loaded = try run(
            "/usr/bin/zsh",
            ["-f", "-c", "autoload -Uz compinit && compinit -u -D && source \"$1\" && print -r -- $_comps[sync-tool] && whence -w _sync_tool", "zsh", path])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.lines == ["_sync_tool", "_sync_tool: function"], "\(loaded.stdout) \(loaded.stderr)")
        #expect(loaded.stderr.isEmpty, "\(loaded.stderr)")
    }

    @Test func anUnknownShellIsAUsageError() {
        let refused = Invocation(["completions", "fish"])
        #expect(refused.status == 2)
        #expect(refused.err.first?.contains("fish") == true)
        #expect(Invocation(["completions"]).status == 2)
    }
}
