import Foundation
import TestSupport
import Testing

/// `stress-test --encrypted`: the same world with the data suite encrypted, its key made for the run
/// and handed to every process in a key file; nothing is lost, and no replica's data file holds a
/// value the workers wrote to it.
@Suite(.offThePool) struct StressEncryptedTests {
    @Test("stress-test --encrypted with kills and a restore: every invariant holds, no value in the clear, and the data files hold none of the workers' values")
    func encryptedRun() async throws {
        let dir = NSTemporaryDirectory() + "/concord-stress-encrypted-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await offThePool {
            try run(
                "stress-test", ["--encrypted", "--seconds", "4", "--kill-rate", "2", "--restore-rate", "0.5", "--seed", "22", "--json", "--dir", dir],
                timeout: 600)
        }
        try #require(result.status == 0, "stress-test failed: \(result.stdout) \(result.stderr.suffix(2_000))")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["clear_values"] as? Int == 0 && summary["lost_writes"] as? Int == 0, "\(summary)")
        let sets = try #require((summary["operations"] as? [String: Any])?["set"] as? [String: Any])
        #expect((sets["count"] as? Int ?? 0) > 0, "the workers set values: \(summary)")
        // Every value a worker sets is "wW-iI-nN": the logs hold them, the replicas' data files do not.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        let logs = try files.filter { $0.hasSuffix(".log") }.map { try Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0)) }
        let marker = Data("-i0-n".utf8)
        #expect(logs.contains { $0.range(of: marker) != nil }, "the scan can find what the workers wrote")
        for replica in ["app-group", "watch", "device"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(replica)/data.mdb"))
            #expect(data.range(of: marker) == nil, "\(replica)'s data.mdb holds a value in the clear")
        }
    }
}
