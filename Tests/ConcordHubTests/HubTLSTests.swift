import Concord
import ConcordHub
import Foundation
import ScratchPostgres
import Synchronization
import TestSupport
import Testing

/// One server with TLS for this suite, its certificate signed by a throwaway CA made with openssl.
enum SharedTLSPostgres {
    private static let made = Mutex<(ScratchCertificates, ScratchPostgres)?>(nil)

    static func get() throws -> (certificates: ScratchCertificates, server: ScratchPostgres) {
        try made.withLock { m in
            if let m { return m }
            let certificates = try ScratchCertificates()
            let server = try ScratchPostgres(tls: certificates)
            m = (certificates, server)
            atexit { SharedTLSPostgres.shutdown() }
            return (certificates, server)
        }
    }

    static func shutdown() {
        let m = made.withLock { m -> (ScratchCertificates, ScratchPostgres)? in
            defer { m = nil }
            return m
        }
        m?.1.destroy()
    }
}

/// TLS to the hub (`sslmode=verify-full` with a CA the test makes), the failures a device meets, and
/// every libpq connection form on the command line.
@Suite("Hub over TLS, and connection strings", .offThePool)
struct HubTLSTests {
    @Test("verify-full against the server's CA syncs over TLS (the server says so); a URI and a keyword/value string both work")
    func verifyFull() throws {
        let (certificates, server) = try SharedTLSPostgres.get()
        let fx = try HubFixture(server: server)
        let alice = try fx.account("alice")
        let uri = alice.url + "?sslmode=verify-full&sslrootcert=\(certificates.caCertificate)"
        let phone = fx.path("phone")
        #expect(try run("sync-tool", ["set", phone, "prefs", "theme", "dark"]).status == 0)
        let synced = try run("sync-tool", ["sync", phone, uri])
        #expect(synced.status == 0, "\(synced.stderr)")
        let hub = try Hub(uri)
        let ssl = try hub.db.execute("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        #expect(try ssl.bool(0, 0) && ssl.text(0, 1).hasPrefix("TLS"))
        // localhost is in the certificate too.
        let byName =
            "postgresql://\(alice.name):\(alice.password)@localhost:\(server.port)/\(fx.database)?sslmode=verify-full&sslrootcert=\(certificates.caCertificate)"
        #expect(try HubSynchronizer().sync(try fx.store("tablet"), try Hub(byName)).bToA.recordsChanged == 1)

        let keywords =
            "host=127.0.0.1 port=\(server.port) user=\(alice.name) dbname=\(fx.database) sslmode=verify-full sslrootcert='\(certificates.caCertificate)'"
        let laptop = fx.path("laptop")
        let child = try ChildProcess("sync-tool", ["sync", laptop, keywords], environment: ["PGPASSWORD": alice.password])
        let result = child.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("<-> hub \(alice.name)@127.0.0.1:\(server.port)/\(fx.database)"), "\(result.stdout)")
        #expect(try run("sync-tool", ["get", laptop, "prefs", "theme"]).stdout == "dark\n")
    }

    @Test("a certificate from another CA: exit 5, saying the certificate did not verify; nothing is created")
    func wrongCertificateAuthority() throws {
        let (_, server) = try SharedTLSPostgres.get()
        let other = try ScratchCertificates()
        let fx = try HubFixture(server: server)
        let alice = try fx.account("alice")
        let dir = fx.path("phone")
        let refused = try run("sync-tool", ["sync", dir, alice.url + "?sslmode=verify-full&sslrootcert=\(other.caCertificate)"])
        #expect(refused.status == 5, "\(refused.stderr)")
        #expect(refused.stderr.contains("certificate verify failed") && refused.stderr.contains("did not verify"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(alice.password))
        #expect(!FileManager.default.fileExists(atPath: dir), "no replica is created for a hub that cannot be reached")
        // verify-ca too, and a CA file that does not exist.
        #expect(try run("sync-tool", ["sync", dir, alice.url + "?sslmode=verify-ca&sslrootcert=\(other.caCertificate)"]).status == 5)
        let missing = try run("sync-tool", ["sync", dir, alice.url + "?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt"])
        #expect(missing.status == 5 && missing.stderr.contains("/nonexistent/ca.crt"), "\(missing.stderr)")
    }

    @Test("a server without TLS when the string requires it: exit 5, saying the server does not speak TLS")
    func serverWithoutTLS() throws {
        let fx = try HubFixture() // the shared server: ssl is off
        let alice = try fx.account("alice")
        for mode in ["require", "verify-full"] {
            let refused = try run("sync-tool", ["sync", fx.path("phone"), alice.url + "?sslmode=\(mode)"])
            #expect(refused.status == 5, "\(refused.stderr)")
            #expect(refused.stderr.contains("does not support SSL") && refused.stderr.contains("does not speak TLS"), "\(refused.stderr)")
        }
        #expect(try run("sync-tool", ["sync", fx.path("phone"), alice.url + "?sslmode=prefer"]).status == 0, "prefer falls back to plain")
    }

    @Test("which B is a hub: URIs and keyword/value strings are; an existing directory, ./NAME and plain paths are replicas")
    func connectionFormsOnTheCommandLine() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let tmp = try TemporaryDirectory("hub-forms")
        defer { tmp.remove() }
        let keywords = "host=127.0.0.1 port=\(fx.server.port) user=\(alice.name) password=\(alice.password) dbname=\(fx.database)"
        let phone = tmp.path("phone")
        #expect(try run("sync-tool", ["set", phone, "prefs", "theme", "dark"]).status == 0)
        let synced = try run("sync-tool", ["sync", phone, keywords])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("<-> hub"), "a keyword/value string is a hub: \(synced.stdout)")
        #expect(!synced.stdout.contains(alice.password) && !synced.stderr.contains(alice.password))
        // A directory whose name parses as keyword/value pairs is still a directory.
        let oddName = "host=x"
        let odd = tmp.path(oddName)
        #expect(try run("sync-tool", ["set", odd, "prefs", "theme", "light"]).status == 0)
        let dirs = try ChildProcess("sync-tool", ["sync", phone, oddName], environment: [:], directory: tmp.root)
        let dirResult = dirs.wait()
        #expect(dirResult.status == 0, "\(dirResult.stderr)")
        #expect(dirResult.stdout.contains("A -> B"), "two directories: \(dirResult.stdout)")
        // ./NAME never reads as a connection string, even when nothing is there.
        let dotted = try ChildProcess("sync-tool", ["sync", phone, "./dbname=y", "--create"], environment: [:], directory: tmp.root)
        #expect(dotted.wait().status == 0)
        #expect(FileManager.default.fileExists(atPath: tmp.path("dbname=y") + "/data.mdb"))
        // Not every word a libpq keyword: a directory.
        #expect(ConnectionString.isKeywordValue("host=x port=5432"))
        #expect(!ConnectionString.isKeywordValue("host=x frobnicate=1"))
        #expect(!ConnectionString.isKeywordValue("my settings"))
        #expect(!ConnectionString.isKeywordValue("/tmp/host=x"))
        #expect(!ConnectionString.isKeywordValue("a=b"))
    }
}
