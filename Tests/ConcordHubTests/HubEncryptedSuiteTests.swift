import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

@Suite("Hub sync: an encrypted suite", .offThePool)
struct HubEncryptedSuiteTests {
    @Test("a push holding an encrypted suite's sealed records is refused, naming the suite, and nothing of it reaches the hub")
    func sealedRecordsAreRefused() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let phone = try fx.store("phone")
        try phone.suite("prefs").set("dark", forKey: "theme")
        let key = EncryptionKey.generate()
        try phone.suite("secrets").encrypt(with: key)
        try phone.suite("secrets").set("s3cret", forKey: "token")
        do {
            try HubSynchronizer().sync(phone, try Hub(alice.url))
            Issue.record("the push was not refused")
        } catch let error as ConcordError {
            #expect(error.code == .refusedByPeer && error.suite == "secrets", "\(error)")
        }
        // Nothing of the push went in: another device pulls nothing, not even the suite in the clear.
        let laptop = try fx.store("laptop")
        try HubSynchronizer().sync(laptop, try Hub(alice.url))
        #expect(try laptop.suite("prefs").get("theme", as: String.self) == nil)
    }
}
