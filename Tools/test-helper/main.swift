// concord-test-helper ROLE [ARGS...]: the "other process" of the multi-process tests.
// Each area of the library has its own file of roles; a role returns its exit code.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard let role = arguments.first else {
    FileHandle.standardError.write(Data("usage: concord-test-helper ROLE [ARGS...]\n".utf8))
    exit(2)
}
let rest = Array(arguments.dropFirst())
do {
    let areas: [(String, [String]) throws -> Int32?] = [
        StoreRoles.run, WrapperRoles.run, SyncRoles.run, ReliabilityRoles.run, HubRoles.run, OperationsRoles.run, SchemaRoles.run,
        LeaseRoles.run, UpgradeRoles.run, GateRoles.run, EncryptionRoles.run
    ]
    for run in areas {
        if let code = try run(role, rest) { exit(code) }
    }
    FileHandle.standardError.write(Data("concord-test-helper: unknown role \(role)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("concord-test-helper \(role): \(error)\n".utf8))
    exit(4)
}
