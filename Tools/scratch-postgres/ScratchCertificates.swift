import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway certificate authority and a server certificate it signed, for `localhost` and
/// `127.0.0.1`, made with the `openssl` command in a temporary directory (EC P-256 keys, valid two
/// days). A client that trusts `caCertificate` (`sslrootcert=…`) can verify the server fully
/// (`sslmode=verify-full`); a client given another authority's certificate cannot.
///
/// ```swift
/// let certificates = try ScratchCertificates()
/// let server = try ScratchPostgres(tls: certificates)
/// let url = server.url() + "?sslmode=verify-full&sslrootcert=\(certificates.caCertificate)"
/// ```
public final class ScratchCertificates: @unchecked Sendable {
    public let directory: String
    /// The authority's certificate (PEM): what a client trusts.
    public var caCertificate: String { directory + "/ca.crt" }
    /// The server's certificate (PEM), signed by the authority.
    public var serverCertificate: String { directory + "/server.crt" }
    /// The server's private key (PEM).
    public var serverKey: String { directory + "/server.key" }

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/concord-tls-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ScratchPostgres.Failure(description: "cannot create a temporary directory for certificates") }
        directory = String(cString: made)
        chmod(directory, 0o755)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + curve + ["-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Concord throwaway test CA"])
        try openssl(["req"] + curve + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
        try "subjectAltName = DNS:localhost, IP:127.0.0.1\n".write(toFile: directory + "/server.ext", atomically: false, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2",
            "-extfile", "server.ext"
        ])
        for file in ["ca.crt", "server.crt"] { chmod(directory + "/" + file, 0o644) }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    private func openssl(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try ServerProcess.which("openssl"))
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        let log = directory + "/openssl.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        try p.run()
        try? handle.close()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ScratchPostgres.Failure(description: "openssl \(arguments[0]) failed (apt-get install openssl): \(text.suffix(1000))")
        }
    }
}
