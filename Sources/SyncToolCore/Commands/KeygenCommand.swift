import Concord

/// `sync-tool keygen FILE`
struct KeygenCommand: Command {
    static let spec = CommandSpec(
        name: "keygen", abstract: "Write a new key for encrypted suites to a new file (mode 0600).",
        positionals: [.init(name: "FILE", help: "The key file to create; an existing file is never overwritten.")],
        discussion: """
            The file holds the key as 64 hex digits, readable by its owner only. Give it to `encrypt` to \
            declare a suite encrypted, and to any command reading or writing the suite (--key-file FILE, or \
            CONCORD_KEY_FILE). Keep it where you keep secrets: Concord never writes it to a replica or a hub. \
            An existing file is exit 3, and it is left as it was.
            """)

    let file: String

    init(_ a: ParsedArguments) throws { file = a.positionals[0] }

    func run(_ io: CommandIO) throws -> ExitCode {
        let key = EncryptionKey.generate()
        try key.write(toFile: file)
        io.out("wrote a new key to \(file) (\(key))")
        return .ok
    }
}
