import Concord

/// `sync-tool rotate-key DIR SUITE --key-file OLD --new-key-file NEW`
struct RotateKeyCommand: Command {
    static let spec = CommandSpec(
        name: "rotate-key", abstract: "Seal an encrypted suite's records again with a new key, and declare it (the declaration syncs).",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The encrypted suite.")],
        options: [.init(name: "new-key-file", valueName: "FILE", help: "The new key (`sync-tool keygen FILE` writes one).")],
        discussion: """
            The suite's current key comes from --key-file FILE (or CONCORD_KEY_FILE). Every record of the suite \
            in this replica is sealed again with the new key in one transaction, and the declaration names the \
            new key from then on: a replica that has it and only the old key is refused (exit 8) until it is \
            given the new one. Records sealed with the old key by a replica that had not yet learned of the \
            rotation stay stored; read them by giving the old key too, and seal them with the new one by \
            rotating to the new key again (--key-file NEW --new-key-file NEW, with the old key given by \
            CONCORD_KEY_FILE). Without the current key it is exit 3, with another key 7, with a key the suite \
            was rotated from 8; a new key the suite was rotated from before is refused (exit 3).
            """)

    let dir, suite, newKeyFile: String

    init(_ a: ParsedArguments) throws {
        (dir, suite) = (a.positionals[0], a.positionals[1])
        guard let newKeyFile = a.option("new-key-file") else { throw CLIError.usage("missing --new-key-file FILE (usage: \(Self.spec.usage))") }
        self.newKeyFile = newKeyFile
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        guard try Arguments.suiteKey() != nil else {
            throw CLIError.usage("rotate-key needs the suite's current key: --key-file FILE, or CONCORD_KEY_FILE")
        }
        let newKey = try EncryptionKey(contentsOfFile: newKeyFile)
        let sealed = try Arguments.openStore(dir).suite(suite).rotateKey(to: newKey)
        io.out("suite '\(suite)' is encrypted with \(newKey) (\(sealed) records sealed again)")
        return .ok
    }
}
