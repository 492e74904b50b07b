import Foundation

/// Writes one line to stdout at once (unbuffered), so a parent sees it even if this process is killed next.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
