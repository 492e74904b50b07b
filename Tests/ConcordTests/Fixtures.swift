import Concord
import Foundation
import Synchronization
import TestSupport

enum Theme: String, CaseIterable, StorableValue { case system, light, dark }
enum Level: Int, Codable, StorableValue { case low = 1, high = 2 }
struct Window: Codable, Hashable, StorableValue {
    var width: Int
    var height: Int
    var title: String
}
enum Pane: String, Hashable, StorableValue { case editor, sidebar, search }

/// A fresh replica in a temporary directory, and a suite with a name no other test uses
/// (errors reported through `UnhandledErrors` carry the suite name, so each test sees its own).
struct Sandbox {
    let tmp: TemporaryDirectory
    let store: Store
    let suite: Suite

    init(_ label: String = "wrappers") throws {
        tmp = try TemporaryDirectory(label)
        store = try Store(path: tmp.path("replica"))
        suite = try store.suite("s-" + UUID().uuidString.prefix(8).lowercased())
        ReportedErrors.install()
    }

    var path: String { tmp.path("replica") }

    func remove() { tmp.remove() }
}

/// Counts calls from any thread, and lets a test wait for them.
final class Flag: Sendable {
    private let count = Mutex(0)
    func raise() { count.withLock { $0 += 1 } }
    var raised: Int { count.withLock { $0 } }
    func wait(for n: Int = 1, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while raised < n && Date() < deadline { usleep(1_000) }
        return raised >= n
    }
}
