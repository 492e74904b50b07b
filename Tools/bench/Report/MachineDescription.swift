import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where and when the figures were measured.
struct MachineDescription: Codable, Sendable {
    let date: String
    let cores: Int
    let cpu: String
    let memoryGiB: Int
    let kernel: String
    let loadAverage: String

    static func current() -> MachineDescription {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown"
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "")
            .split(separator: " ").prefix(3).joined(separator: " ")
        return MachineDescription(
            date: formatter.string(from: Date()),
            cores: ProcessInfo.processInfo.activeProcessorCount,
            cpu: model,
            memoryGiB: Int((Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)).rounded()),
            kernel: "Linux " + release,
            loadAverage: load)
    }
}
