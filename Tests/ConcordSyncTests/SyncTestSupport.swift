import Concord
import Foundation
import Synchronization
import TestSupport
import Testing

enum Replicas {
    /// Opens (creating) a replica for a test: no fsync (the tests are about merging, not power loss).
    static func open(
        _ path: String, clock: (@Sendable () -> Duration)? = nil, mapSize: Int? = nil, drift: UInt64? = nil, keys: [String: EncryptionKey] = [:]
    ) throws -> Store {
        var options = Store.Options()
        options.durability = .none
        options.suiteKeys = keys
        if let clock { options.wallClock = clock }
        if let mapSize { options.initialMapSize = mapSize }
        if let drift { options.maxClockDrift = .milliseconds(drift) }
        return try Store(path: path, options: options)
    }

    /// Every record of every suite (tombstones included).
    static func dump(_ store: Store) throws -> [SuiteKey: Record] {
        var out: [SuiteKey: Record] = [:]
        for suite in try store.suiteNames() {
            for (key, record) in try store.suite(suite).records() { out[SuiteKey(suite: suite, key: key)] = record }
        }
        return out
    }

    /// The dump as bytes, to compare replicas byte for byte.
    static func bytes(_ store: Store) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for (k, r) in try dump(store) { out[k.description] = r.encoded }
        return out
    }

    static func expectSound(_ store: Store, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let report = try store.integrityReport()
        #expect(report.isSound, "\(context) \(store.directory): \(report.problems)", sourceLocation: sourceLocation)
    }
}

enum Fixtures {
    /// The repository's fixtures/bundles directory.
    static var bundles: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/fixtures/bundles"
    }
}
