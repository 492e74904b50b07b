/// `sync-tool completions bash|zsh`
struct CompletionsCommand: Command {
    static let shells = ["bash", "zsh"]

    static let spec = CommandSpec(
        name: "completions", abstract: "Print the shell completion script for bash or zsh (generated from the commands' specs).",
        positionals: [.init(name: "SHELL", help: "bash or zsh.", choices: shells)],
        discussion: """
            bash:  source <(sync-tool completions bash)        or save it as /etc/bash_completion.d/sync-tool
            zsh:   source <(sync-tool completions zsh)         (after compinit), or save it as _sync-tool in a directory of $fpath
            """)

    let shell: String

    init(_ a: ParsedArguments) throws {
        shell = a.positionals[0]
        guard Self.shells.contains(shell) else {
            throw CLIError.usage("unknown shell '\(printable(shell))' (bash or zsh)")
        }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        io.out(shell == "bash" ? BashCompletionScript(commands: SyncTool.commands).text : ZshCompletionScript(commands: SyncTool.commands).text)
        return .ok
    }
}
