import Concord

/// `sync-tool encrypt DIR SUITE --key-file FILE`
struct EncryptCommand: Command {
    static let spec = CommandSpec(
        name: "encrypt", abstract: "Declare a suite encrypted with a key file's key; values already stored are sealed again.",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The suite to encrypt.")],
        discussion: """
            The key comes from --key-file FILE (or CONCORD_KEY_FILE; `sync-tool keygen` writes one). From \
            then on the suite's values and key names are sealed in the replica, in bundles and on the wire, \
            and every command reading or writing them needs the key. The values stored before are sealed \
            again in the same transaction. Encrypting again with the same key changes nothing; with another \
            key it is exit 7. Counters, max and min keys and sets still merge once the suite is encrypted, \
            but a suite holding one's state in the clear, or a value that expires, is refused (exit 3).
            """)

    let dir, suite: String

    init(_ a: ParsedArguments) throws { (dir, suite) = (a.positionals[0], a.positionals[1]) }

    func run(_ io: CommandIO) throws -> ExitCode {
        guard let key = try Arguments.suiteKey() else {
            throw CLIError.usage("encrypt needs the key: --key-file FILE, or CONCORD_KEY_FILE (sync-tool keygen FILE writes one)")
        }
        let sealed = try Arguments.openStore(dir).suite(suite).encrypt(with: key)
        io.out("suite '\(suite)' is encrypted with \(key)" + (sealed > 0 ? " (\(sealed) stored values sealed again)" : ""))
        return .ok
    }
}
