import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway OpenSSH server for the remote-sync tests, the stress test and the benchmark:
/// `/usr/sbin/sshd -D` on 127.0.0.1 at a free port, with a host key, a client key and its
/// authorized_keys made fresh in a temporary directory (public-key logins only, as this user).
/// As root, sshd needs `StrictModes no` (the keys live in /tmp) and `UsePAM no`.
///
/// ```swift
/// let ssh = try ScratchSSH()
/// defer { ssh.destroy() }
/// // sync-tool sync DIR \(ssh.address("/tmp/far")) --rsh "\(ssh.rsh)" --remote-command /path/to/sync-tool
/// ```
public final class ScratchSSH: @unchecked Sendable {
    public let directory: String
    /// The TCP port on 127.0.0.1 (picked at random; another is tried when it is taken).
    public private(set) var port: Int
    /// The user logins are for (the one running this process).
    public let user: String
    private var server: Int32?

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd") else {
            throw Failure(description: "/usr/sbin/sshd is missing: install openssh-server (Scripts/install-deps.sh does)")
        }
        var template = Array((NSTemporaryDirectory() + "/concord-ssh-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "cannot create a temporary directory for sshd") }
        directory = String(cString: made)
        user = NSUserName()
        port = Int.random(in: 20_000...60_000)
        // sshd's privilege separation directory (Debian creates it at boot, not at install in containers).
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        for key in ["host_key", "client_key", "stranger_key"] {
            try Self.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "concord-test", "-f", directory + "/" + key])
        }
        try FileManager.default.copyItem(atPath: directory + "/client_key.pub", toPath: directory + "/authorized_keys")
        for attempt in 0..<6 {
            do {
                try start()
                break
            } catch  where attempt < 5 { port = Int.random(in: 20_000...60_000) }
        }
        try startWatchdog()
    }

    /// The `--rsh` command that logs in with the authorized key (no host-key prompts, no agent).
    public var rsh: String { rsh(key: directory + "/client_key") }

    /// The `--rsh` command with a key the server does not accept (its login is refused).
    public var refusedRsh: String { rsh(key: directory + "/stranger_key") }

    private func rsh(key: String) -> String {
        "ssh -p \(port) -i \(key) -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
    }

    /// `user@127.0.0.1:PATH`.
    public func address(_ path: String) -> String { "\(user)@127.0.0.1:\(path)" }

    private func start() throws {
        let config = directory + "/sshd_config"
        let log = directory + "/sshd.log"
        try """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(directory)/host_key
        PidFile \(directory)/sshd.pid
        AuthorizedKeysFile \(directory)/authorized_keys
        StrictModes no
        UsePAM no
        PubkeyAuthentication yes
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        PermitRootLogin prohibit-password
        MaxStartups 200
        MaxSessions 200
        LogLevel INFO
        """.write(toFile: config, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        // sshd runs detached (a shell starts it in the background and exits), so it is not a child of
        // this process: Foundation's child monitor would otherwise wait on the long-lived server and
        // stop noticing other children's exits.
        let pid = try Self.detached("exec /usr/sbin/sshd -D -f '\(config)' -E '\(log)'")
        server = pid
        // Ready once it logs that it listens; failed if sshd exits (a taken port, a bad config).
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if said.contains("Server listening on 127.0.0.1 port \(port)") { return }
            if kill(pid, 0) != 0 { throw Failure(description: "sshd exited: \(said)") }
            usleep(10_000)
        }
        kill(pid, SIGTERM)
        throw Failure(description: "sshd did not listen on port \(port) within 10 s")
    }

    /// Starts `command` in the background of a shell that exits at once; returns its process id.
    private static func detached(_ command: String) throws -> Int32 {
        let p = Process()
        let out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "(\(command)) </dev/null >/dev/null 2>&1 & echo $!"]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // The shell exits at once; Foundation can miss so quick an exit, so reap it here.
        var status: Int32 = 0
        while p.isRunning && waitpid(p.processIdentifier, &status, WNOHANG) == 0 { usleep(1_000) }
        guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(description: "cannot start '\(command)' in the background")
        }
        return pid
    }

    /// A detached shell loop that outlives a killed owner: once this process is gone, it stops sshd
    /// and removes the directory.
    private func startWatchdog() throws {
        _ = try Self.detached(
            """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            kill \(server ?? 0) 2>/dev/null
            rm -rf '\(directory)'
            """)
    }

    /// Stops sshd (sessions under way end) and removes the directory.
    public func destroy() {
        if let server { kill(server, SIGTERM) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { destroy() }

    private static func run(_ path: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Failure(description: "\(path) \(arguments.joined(separator: " ")) failed (exit \(p.terminationStatus))") }
    }
}
