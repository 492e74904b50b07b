import Concord
import Foundation
import ScratchSSH
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The README's "command line in one screen", run line by line as it stands: the local lines on
/// replicas in a temporary directory, the ssh line through a real sshd on loopback, the hub line with
/// an account on a real PostgreSQL hub. Each line must do what its comment says.
@Suite(.offThePool) struct ReadmeCommandLineTests {
    /// The command lines of the README's section, each split into its arguments (its comment dropped).
    static func readmeLines() throws -> [[String]] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let readme = try String(contentsOfFile: url.path + "/README.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## The command line in one screen").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        return block.split(separator: "\n").map { line in
            let command = line.components(separatedBy: " #").first ?? ""
            return command.split(separator: " ").map(String.init)
        }
    }

    @Test func theReadmesCommandLinesDoWhatTheySay() throws {
        let lines = try Self.readmeLines()
        #expect(lines.count >= 9 && lines.allSatisfy { $0.first == "sync-tool" }, "\(lines)")
        let ssh = try ScratchSSH()
        defer { ssh.destroy() }
        let hub = try HubFixture()
        let account = try hub.account("alice")
        let (laptop, phone, desktop) = (hub.path("laptop"), hub.path("phone"), hub.path("desktop"))
        var ran: Set<String> = []
        for line in lines {
            var arguments: [String] = []
            for word in line.dropFirst() {
                switch word {
                case "/tmp/laptop": arguments.append(laptop)
                case "/tmp/phone": arguments.append(phone)
                case "/tmp/secrets.key": arguments.append(hub.path("secrets.key"))
                case "alice@desktop:settings":
                    arguments += [ssh.address(desktop), "--rsh", ssh.rsh, "--remote-command", Binaries.path("sync-tool")]
                    ran.insert("ssh")
                case "postgresql://alice@db/settings":
                    arguments.append(account.url)
                    ran.insert("hub")
                default: arguments.append(word)
                }
            }
            let shown = line.joined(separator: " ")
            if arguments.first == "watch" {
                // Each change as it lands, from any process: another process's write is printed.
                let child = try ChildProcess("sync-tool", arguments)
                #expect(child.waitForErrorLine { $0.hasPrefix("watching") }, "\(shown): \(child.errorOutput)")
                try Store(path: laptop).suite("prefs").set("light", forKey: "theme")
                #expect(child.waitForLine { $0.contains("theme") && $0.contains("light") }, "\(shown): \(child.output)")
                child.kill(SIGINT)
                _ = child.wait(timeout: 30)
                try Store(path: laptop).suite("prefs").set("dark", forKey: "theme")
            } else if arguments.contains("--watch") {
                // Live: a round at once, then a local change reaches the far side; SIGINT ends it with a summary.
                let child = try ChildProcess("sync-tool", arguments)
                #expect(child.waitForLine { $0.hasPrefix("round 1:") }, "\(shown): \(child.errorOutput)")
                try Store(path: laptop).suite("prefs").set("live", forKey: "mode")
                let far = try Store(path: desktop)
                let deadline = Date().addingTimeInterval(30)
                while try far.suite("prefs").get("mode", as: String.self) != "live" && Date() < deadline { usleep(10_000) }
                #expect(try far.suite("prefs").get("mode", as: String.self) == "live", "\(shown): the change went live over ssh")
                child.kill(SIGINT)
                let result = child.wait(timeout: 30)
                #expect(result.exited(0) && result.lines.last?.hasPrefix("stopped after") == true, "\(shown): \(result)")
            } else {
                let result = try run("sync-tool", arguments, timeout: 120)
                #expect(result.exited(0), "\(shown): \(result)")
            }
        }
        #expect(ran == ["ssh", "hub"], "the README has an ssh line and a hub line")
        // What the lines left: the phone and the desktop hold the laptop's theme, and the hub has it too.
        #expect(try Store(path: phone).suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try Store(path: desktop).suite("prefs").get("theme", as: String.self) == "dark")
        let fromHub = hub.path("from-hub")
        #expect(try run("sync-tool", ["sync", fromHub, account.url], timeout: 120).exited(0))
        #expect(try Store(path: fromHub).suite("prefs").get("theme", as: String.self) == "dark")
    }
}
