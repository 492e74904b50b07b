import Foundation
import TestSupport
import Testing

/// What a fresh process sees in a replica: `sync-tool list DIR SUITE`, as key → value text.
enum StoreContents {
    static func list(_ dir: String, suite: String) throws -> [String: String] {
        let outcome = try run("sync-tool", ["list", dir, suite, "--json"], timeout: 60)
        guard outcome.exited(0) else {
            Issue.record("sync-tool list \(dir) \(suite) failed: \(outcome)")
            return [:]
        }
        var out: [String: String] = [:]
        for line in outcome.lines {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let key = object["key"] as? String, let value = object["value"]
            else {
                Issue.record("sync-tool list --json printed a line that is not a record: \(line.prefix(200))")
                continue
            }
            out[key] = value as? String ?? "\(value)"
        }
        return out
    }

    /// Expects `stored` to hold exactly `expected`, naming the keys that differ (values can be long).
    static func expectEqual(_ stored: [String: String], _ expected: [String: String], sourceLocation: SourceLocation = #_sourceLocation) {
        let missing = expected.keys.filter { stored[$0] == nil }.sorted()
        let extra = stored.keys.filter { expected[$0] == nil }.sorted()
        let wrong = expected.keys.filter { stored[$0] != nil && stored[$0] != expected[$0] }.sorted()
        #expect(
            missing.isEmpty && extra.isEmpty && wrong.isEmpty,
            "missing: \(missing), not expected: \(extra), other value: \(wrong)", sourceLocation: sourceLocation)
    }

    /// Expects `sync-tool check DIR` to pass in a fresh process.
    static func expectSound(_ dir: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let outcome = try run("sync-tool", ["check", dir], timeout: 60)
        #expect(outcome.exited(0), "sync-tool check \(dir): \(outcome)", sourceLocation: sourceLocation)
    }
}
