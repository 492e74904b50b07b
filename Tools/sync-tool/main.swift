import SyncToolCore
#if canImport(Glibc)
import Glibc
#endif

exit(SyncTool.run(Array(CommandLine.arguments.dropFirst())))
