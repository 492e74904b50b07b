// stress-test: a realistic multi-process world on one machine, with chaos, and the checks that
// prove nothing was lost. See `stress-test --help`.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--worker" {
    do {
        try Worker(arguments: Array(arguments.dropFirst())).run()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("stress-test worker: \(error)\n".utf8))
        exit(4)
    }
}
if arguments.contains("--help") || arguments.contains("-h") {
    print(StressOptions.help)
    exit(0)
}
do {
    let options = try StressOptions.parse(arguments)
    // A timeline that cannot be written is found before the run, not after it.
    if let path = options.timeline, let problem = TimelineFile.unwritable(path) {
        FileHandle.standardError.write(Data("stress-test: \(problem)\n".utf8))
        exit(3)
    }
    let coordinator = try Coordinator(options: options)
    let summary = try coordinator.run()
    print(options.json ? summary.json : summary.text, terminator: options.json ? "\n" : "")
    if let path = options.timeline, let timeline = coordinator.timeline {
        do { try TimelineChart(timeline: timeline, summary: summary, options: options).svg().write(to: path) } catch {
            FileHandle.standardError.write(Data("stress-test: cannot write the timeline to \(path): \(error.localizedDescription)\n".utf8))
            exit(3)
        }
    }
    exit(summary.ok ? 0 : 1)
} catch let error as StressOptions.UsageError {
    FileHandle.standardError.write(Data("stress-test: \(error.description)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("stress-test: \(error)\n".utf8))
    exit(4)
}
