import Foundation
import TestSupport
import Testing

/// A bounded fuzz loop over every decoder in the helper's `FuzzTargets` (the value decoder, the JSON
/// parser, bundles, policy records, and hub pages — rows through the hub client's gate, merged into a
/// replica that must stay sound; a new decoder is one line there). Fuzzing runs in a helper process that writes each input to a
/// file before decoding it, so a crash or a hang leaves the input behind: it is kept in fixtures/fuzz/TARGET/
/// and replayed by `replayKeptInputs` from then on.
///
/// `CONCORD_FUZZ_ITERATIONS` and `CONCORD_FUZZ_SEED` make longer or different runs.
@Suite(.offThePool) struct FuzzTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/fuzz").path

    static func targets() throws -> [String] {
        let listed = try run("concord-test-helper", ["fuzz-targets"])
        try #require(listed.exited(0), "fuzz-targets: \(listed)")
        return listed.lines
    }

    @Test func fuzzEveryDecoder() throws {
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["CONCORD_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 100_000
        let seed = environment["CONCORD_FUZZ_SEED"].flatMap(UInt64.init) ?? 0xF0CC_ACC1
        let tmp = try TemporaryDirectory("concord-fuzz")
        defer { tmp.remove() }
        let targets = try Self.targets()
        #expect(targets.contains("value") && targets.contains("json") && targets.contains("hub-page"))
        for target in targets {
            let current = tmp.path("current-\(target)")
            let outcome = try run("concord-test-helper", ["fuzz", target, String(seed), String(iterations), current], timeout: 240)
            if !outcome.exited(0) {
                let kept = try keep(current, target: target, why: outcome.timedOut ? "hang" : outcome.signaled ? "crash" : "failure")
                Issue.record("fuzzing \(target) (seed \(seed)) \(outcome); the input is kept as \(kept)")
                continue
            }
            let summary = try #require(outcome.lines.last)
            figure("fuzz \(target)", "\(summary) in \(Int(outcome.milliseconds)) ms (seed \(seed)), no crash, hang or broken round trip")
        }
    }

    @Test func replayKeptInputs() throws {
        let targets = try Self.targets()
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures).sorted()
        #expect(!folders.isEmpty, "fixtures/fuzz holds the kept inputs")
        var replayed = 0
        for folder in folders {
            #expect(targets.contains(folder), "fixtures/fuzz/\(folder) belongs to no fuzz target")
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures + "/" + folder).sorted()
                .map { Self.fixtures + "/" + folder + "/" + $0 }
            guard !files.isEmpty, targets.contains(folder) else { continue }
            let outcome = try run("concord-test-helper", ["fuzz-replay", folder] + files)
            #expect(outcome.exited(0), "replaying fixtures/fuzz/\(folder): \(outcome)")
            #expect(outcome.lines.count == files.count, "one verdict per kept input: \(outcome.stdout)")
            replayed += files.count
        }
        figure("fuzz replay", "\(replayed) kept inputs in \(folders.count) folders decoded or rejected without a crash")
    }

    /// Copies a crashing input into fixtures/fuzz/TARGET/, named after its content.
    private func keep(_ input: String, target: String, why: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: input))
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
        let folder = Self.fixtures + "/" + target
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/\(why)-\(String(hash, radix: 16)).bin"
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }
}
