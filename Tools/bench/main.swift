// bench: Concord side by side with raw LMDB, UserDefaults and SQLite. Logic lives in the other files;
// `bench --child ROLE ARGS…` is the hidden mode in which the bench binary acts as another process.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--child" {
    exit(ChildRoles.run(Array(arguments.dropFirst())))
}

let options: BenchArguments
do {
    options = try BenchArguments.parse(arguments)
} catch {
    FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
    exit(2)
}
if options.showHelp {
    print(BenchArguments.help)
    exit(0)
}
exit(BenchRunner(options).run())
