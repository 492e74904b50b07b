/// What a shell offers for an argument or an option's value, read from the command specs: the
/// choices a spec lists, directories for a `DIR…` or `DEST`, files for a `FILE`, else nothing.
enum CompletionValue: Equatable {
    case choices([String])
    case directories
    case files
    case anything

    init(valueName: String, choices: [String]) {
        if !choices.isEmpty {
            self = .choices(choices)
        } else if valueName == "DIR" || valueName.hasPrefix("DIR_") || valueName == "DEST" {
            self = .directories
        } else if valueName == "FILE" {
            self = .files
        } else {
            self = .anything
        }
    }
}

extension CommandSpec.Positional {
    var completion: CompletionValue { CompletionValue(valueName: name, choices: choices) }
}

extension CommandSpec.Option {
    var completion: CompletionValue { CompletionValue(valueName: valueName, choices: choices) }
}

/// The words every completion script offers besides the commands.
enum TopLevelFlags {
    /// Flags accepted before any command: `--help`, `--version` and its short forms.
    static let names = ["--help", "-h", "--version", "-V"]
}
