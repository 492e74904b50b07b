import Foundation
import TestSupport
import Testing

@testable import Concord

/// Every read path decodes a key's row through the one reader: a damaged row is the same error
/// everywhere, of code `.damaged`, naming the suite and the key.
@Suite(.timeLimit(.minutes(1))) struct RowReaderTests {
    /// A store whose row of app/k holds a seq and a flags byte and nothing else, as damage would leave it.
    static func damagedStore(_ tmp: TemporaryDirectory) throws -> Store {
        let store = try Store(path: tmp.path("r"))
        try store.suite("app").set(1, forKey: "k")
        try store.suite("app").set(2, forKey: "other")
        try store.write { w in
            try w.txn.put(w.layout.records, StoreLayout.recordKey(suite: "app", key: "k"), [0, 0, 0, 0, 0, 0, 0, 1, 0])
        }
        return store
    }

    static func expectNamed(_ error: (any Error)?, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = error as? ConcordError
        #expect(error?.code == .damaged, "\(path): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.suite == "app" && error?.key == "k", "\(path): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.contains("the record of app/k does not decode") == true, "\(path): \(String(describing: error))", sourceLocation: sourceLocation)
    }

    static func caught(_ body: () throws -> Void) -> (any Error)? {
        do { try body() } catch { return error }
        return nil
    }

    @Test func everyReadOfADamagedRowNamesItsSuiteAndKey() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Self.damagedStore(tmp)
        let suite = try store.suite("app")
        Self.expectNamed(Self.caught { _ = try suite.get("k", as: Int.self) }, "get")
        Self.expectNamed(Self.caught { _ = try suite.storedValue(forKey: "k") }, "storedValue")
        Self.expectNamed(Self.caught { _ = try suite.record(forKey: "k") }, "record")
        Self.expectNamed(Self.caught { _ = try suite.contains("k") }, "contains")
        Self.expectNamed(Self.caught { _ = try suite.snapshotRead(forKey: "k") }, "snapshotRead")
        Self.expectNamed(Self.caught { _ = try suite.records() }, "records (a scan)")
        Self.expectNamed(Self.caught { _ = try suite.snapshot() }, "snapshot")
        Self.expectNamed(Self.caught { _ = try suite.explain("k") }, "explain")
        Self.expectNamed(Self.caught { _ = try store.write { w in try w.value(suite: "app", key: "k") } }, "the write core's value")
        Self.expectNamed(Self.caught { try suite.set(3, forKey: "k") }, "a write over it")
        var observed: (any Error)?
        do { for try await _ in suite.values(of: "k", as: Int.self) { break } } catch { observed = error }
        Self.expectNamed(observed, "values(of:)")
        #expect(try suite.get("other", as: Int.self) == 2, "the other rows read as they are")
    }
}
