import Foundation

/// Finds the package's built executables (`sync-tool`, `concord-test-helper`, …).
public enum Binaries {
    /// The directory holding the built products: `$CONCORD_BIN_DIR`, or the nearest directory above
    /// this executable holding `sync-tool`, or `.build/debug`.
    public static var directory: String {
        if let dir = ProcessInfo.processInfo.environment["CONCORD_BIN_DIR"] { return dir }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.path + "/sync-tool") { return url.path }
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug"
    }

    /// The path of the built product `name`.
    public static func path(_ name: String) -> String { directory + "/" + name }
}
