import Concord
import Foundation
import TestSupport
import Testing

/// Floats and UUIDs travel as themselves: through a sync and through a bundle file.
@Suite(.offThePool) struct NativeValueSyncTests {
    @Test func floatsAndUUIDsTravelThroughSyncsAndBundles() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let phone = try Store(path: tmp.path("phone"))
        let watch = try Store(path: tmp.path("watch"))
        let laptop = try Store(path: tmp.path("laptop"))
        let id = UUID()
        try phone.suite("app").set(Float(0.1), forKey: "scale")
        try phone.suite("app").set(id, forKey: "device")
        try Synchronizer().sync(phone, watch)
        #expect(try watch.suite("app").value(forKey: "scale") == .float(0.1))
        #expect(try watch.suite("app").get("device", as: UUID.self) == id)

        let bundle = tmp.path("phone.bundle")
        try BundleExchange.export(from: phone, since: .beginning, to: bundle)
        try BundleExchange.importBundle(at: bundle, into: laptop)
        #expect(try laptop.suite("app").value(forKey: "scale") == .float(0.1))
        #expect(try laptop.suite("app").value(forKey: "device") == .uuid(id))
        #expect(try laptop.integrityReport().isSound)
    }
}
