import Foundation
import SyncToolCore

#if canImport(Glibc)
    import Glibc
#endif

// CommandLine.arguments turns bytes that are not UTF-8 into U+FFFD, so two different keys (or
// directories) given on the command line could become the same one: refuse them, from the raw bytes.
if let raw = FileManager.default.contents(atPath: "/proc/self/cmdline") {
    for (index, argument) in raw.split(separator: 0, omittingEmptySubsequences: false).dropFirst().enumerated()
    where String(validating: argument, as: UTF8.self) == nil {
        FileHandle.standardError.write(Data("sync-tool: argument \(index + 1) is not valid UTF-8; names, keys and values are UTF-8 text\n".utf8))
        exit(3)
    }
}
exit(SyncTool.run(Array(CommandLine.arguments.dropFirst())))
