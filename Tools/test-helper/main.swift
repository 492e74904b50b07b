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
    if let code = try StoreRoles.run(role, rest) ?? WrapperRoles.run(role, rest) ?? SyncRoles.run(role, rest) ?? ReliabilityRoles.run(role, rest)
        ?? HubRoles.run(role, rest) ?? OperationsRoles.run(role, rest) ?? SchemaRoles.run(role, rest) ?? LeaseRoles.run(role, rest)
        ?? UpgradeRoles.run(role, rest) ?? GateRoles.run(role, rest)
    {
        exit(code)
    }
    FileHandle.standardError.write(Data("concord-test-helper: unknown role \(role)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("concord-test-helper \(role): \(error)\n".utf8))
    exit(4)
}
