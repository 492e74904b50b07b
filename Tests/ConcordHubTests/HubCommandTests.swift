import Concord
import ConcordHub
import Foundation
import TestSupport
import Testing

@Suite("sync-tool hub and sync DIR postgresql://…", .offThePool)
struct HubCommandTests {
    @Test("init is idempotent; add-account prints how to connect; two devices sync through the hub; stats and gc report")
    func endToEnd() throws {
        let fx = try HubFixture()
        let again = try run("sync-tool", ["hub", "init", fx.adminURL])
        #expect(again.status == 0 && again.stdout.contains("nothing changed"))
        let added = try run("sync-tool", ["hub", "add-account", fx.adminURL, fx.prefix + "carol"])
        #expect(added.status == 0, "\(added.stderr)")
        let password = try #require(added.lines.first { $0.contains("password:") }?.split(separator: " ").dropFirst().first.map(String.init))
        #expect(added.stdout.contains("sync-tool sync DIR 'postgresql://\(fx.prefix)carol@127.0.0.1:\(fx.server.port)/\(fx.database)'"))
        #expect(!added.stdout.contains(fx.server.adminPassword), "the admin's password is never printed")
        let url = fx.server.url(database: fx.database, user: fx.prefix + "carol", password: password)

        let phone = fx.path("phone")
        let laptop = fx.path("laptop")
        #expect(try run("sync-tool", ["set", phone, "prefs", "theme", "dark"]).status == 0)
        #expect(try run("sync-tool", ["sync", phone, url, "--dry-run"]).status == 10)
        let synced = try run("sync-tool", ["sync", phone, url, "--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("\"pushed\":1") && synced.stdout.contains("\"hub_rows_changed\":1"))
        #expect(try run("sync-tool", ["sync", laptop, url]).status == 0)
        #expect(try run("sync-tool", ["get", laptop, "prefs", "theme"]).stdout == "dark\n")
        #expect(try run("sync-tool", ["sync", laptop, url, "--dry-run"]).status == 0)

        let stats = try run("sync-tool", ["hub", "stats", fx.adminURL, "--json"])
        #expect(stats.status == 0 && stats.stdout.contains("\"accounts\":1") && stats.stdout.contains("\"devices\":2"))
        let gc = try run("sync-tool", ["hub", "gc", fx.adminURL, "--retention", "0"])
        #expect(gc.status == 0 && gc.stdout.contains("collected 0 tombstones"))
    }

    @Test("exit codes: 5 unreachable or login refused (password never printed), 3 bad input, 2 usage, 4 no hub")
    func exitCodes() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let dir = fx.path("d")
        let refused = try run("sync-tool", ["sync", dir, fx.server.url(database: fx.database, user: alice.name, password: "wrong-pass-123")])
        #expect(refused.status == 5)
        #expect(!refused.stderr.contains("wrong-pass-123") && refused.stderr.contains("***"))
        let closed = try run("sync-tool", ["sync", dir, "postgresql://x:secretpw@127.0.0.1:1/db"])
        #expect(closed.status == 5 && !closed.stderr.contains("secretpw"))
        #expect(try run("sync-tool", ["hub", "stats", "postgresql://127.0.0.1/db?nosuchoption=1"]).status == 3)
        #expect(try run("sync-tool", ["hub", "add-account", fx.adminURL, "Robert'); DROP"]).status == 3)
        #expect(try run("sync-tool", ["hub", "add-account", fx.adminURL, alice.name]).status == 3)
        #expect(try run("sync-tool", ["hub", "frobnicate", fx.adminURL]).status == 2)
        #expect(try run("sync-tool", ["hub", "gc", fx.adminURL, "--retention", "soon"]).status == 3)
        let huge = try run("sync-tool", ["hub", "gc", fx.adminURL, "--retention", "1e300"])
        #expect(huge.status == 3 && huge.stderr.contains("0 to 36500"))
        #expect(try run("sync-tool", ["sync", dir, alice.url, "--watch", "--dry-run"]).status == 2)
        let bare = try PostgresConnection(ConnectionString(fx.server.url()))
        try bare.execute("CREATE DATABASE \(fx.database)_empty")
        let noHub = try run("sync-tool", ["hub", "stats", fx.server.url(database: fx.database + "_empty")])
        #expect(noHub.status == 4 && noHub.stderr.contains("hub init"))
    }
}

@Suite("sync-tool's hub errors: one line, the right exit code, no secret", .offThePool)
struct HubErrorLineTests {
    func expectOneLine(_ result: ProcessResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.stderr.split(separator: "\n").count == 1, "\(what): one line on stderr: \(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test("a bad sslmode is bad input (exit 3), not an unreachable hub; libpq's hints join the message on its line")
    func badOptionsAndHints() throws {
        let dir = try TemporaryDirectory("hub-error-lines")
        defer { dir.remove() }
        for arguments in [
            ["sync", dir.path("d"), "postgresql://alice:secretpw@127.0.0.1:1/db?sslmode=bogus"],
            ["hub", "stats", "postgresql://127.0.0.1:1/db?sslmode=bogus"]
        ] {
            let result = try run("sync-tool", arguments)
            #expect(result.status == 3, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("sslmode=bogus") && !result.stderr.contains("secretpw"), "\(result.stderr)")
            expectOneLine(result, arguments[0])
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path("d")), "nothing was created")
        // Nothing listens on port 1: libpq adds "Is the server running on that host…?" on a line of its own.
        let closed = try run("sync-tool", ["sync", dir.path("d"), "postgresql://x:secretpw@127.0.0.1:1/db"])
        #expect(closed.status == 5 && !closed.stderr.contains("secretpw"), "\(closed.stderr)")
        #expect(closed.stderr.contains("Is the server running"), "libpq's hint is kept: \(closed.stderr)")
        expectOneLine(closed, "unreachable hub")
    }

    @Test("add-account by a role that may not create roles fails on one line that never shows the new password or its verifier")
    func refusedAddAccount() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let result = try run("sync-tool", ["hub", "add-account", alice.url, fx.prefix + "mallory"])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("permission denied"), "the server's reason: \(result.stderr)")
        #expect(!result.stderr.contains("SCRAM-SHA-256") && !result.stderr.contains("CREATE ROLE"), "no statement, no verifier: \(result.stderr)")
        #expect(!result.stdout.contains("password:"), "no password was handed out: \(result.stdout)")
        expectOneLine(result, "add-account")
    }
}

@Suite("sync-tool sync DIR postgresql://… --watch", .offThePool)
struct HubWatchCommandTests {
    @Test("--watch keeps a directory live: a change pushed by another device arrives, and a local one is pushed, until killed")
    func watch() throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let watched = fx.path("watched")
        let phone = fx.path("phone")
        #expect(try run("sync-tool", ["set", watched, "prefs", "seed", "1"]).status == 0)
        let live = try ChildProcess("sync-tool", ["sync", watched, alice.url, "--watch", "--json"])
        defer { live.kill() }
        #expect(try run("sync-tool", ["set", phone, "prefs", "theme", "dark"]).status == 0)
        #expect(try run("sync-tool", ["sync", phone, alice.url]).status == 0)
        var arrived = false
        for _ in 0..<1000 where !arrived {
            arrived = (try? run("sync-tool", ["get", watched, "prefs", "theme"]).stdout) == "dark\n"
            if !arrived { usleep(20_000) }
        }
        #expect(arrived, "\(live.errorOutput)")
        #expect(live.waitForLine(timeout: 30) { $0.contains("\"records_changed_a\":1") }, "the round that pulled it: \(live.output)")
        // The watched directory's own change goes up without another command.
        #expect(try run("sync-tool", ["set", watched, "prefs", "font", "14"]).status == 0)
        var pushed = false
        for _ in 0..<1000 where !pushed {
            _ = try run("sync-tool", ["sync", phone, alice.url])
            pushed = (try? run("sync-tool", ["get", phone, "prefs", "font"]).stdout) == "14\n"
            if !pushed { usleep(20_000) }
        }
        #expect(pushed)
        #expect(live.process.isRunning)
        #expect(!live.errorOutput.contains(alice.url.split(separator: ":")[2].split(separator: "@")[0]), "no password in the log")
    }

    /// A script's background job starts with SIGINT ignored (no job control): the watch must still stop
    /// on it, as on SIGTERM, with a summary and exit 0 — what a directory's `--watch` does.
    @Test("--watch started in the background by a script stops on SIGINT and on SIGTERM: a summary, exit 0", arguments: [SIGINT, SIGTERM])
    func watchStopsOnSignal(_ sig: Int32) throws {
        let fx = try HubFixture()
        let alice = try fx.account("alice")
        let watched = fx.path("watched")
        #expect(try run("sync-tool", ["set", watched, "prefs", "seed", "1"]).status == 0)
        let (out, status) = (fx.path("watch.out"), fx.path("watch.status"))
        // The braces are the script's background job; the watch runs in it as a foreground command, so
        // the job's shell waits for it with a plain blocking wait and records how it ended.
        let script = """
            { "$0" sync "$1" "$2" --watch --json > "$3" 2>&1; echo "status $?" > "$4"; } &
            echo "job $!"
            """
        let shell = try ChildProcess("/bin/sh", ["-c", script, Binaries.path("sync-tool"), watched, alice.url, out, status])
        let job = try #require(shell.wait(timeout: 30).lines.first { $0.hasPrefix("job ") }.flatMap { Int32($0.dropFirst(4)) })
        defer { kill(job, SIGKILL) }
        func read(_ path: String) -> [String] { ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        var watch: Int32?
        var rounds = false
        for _ in 0..<1500 where watch == nil || !rounds {
            watch = watch ?? childProcesses(of: job).first
            rounds = read(out).contains { $0.contains("\"pushed\":1") } // the first round pushed the seed
            if watch == nil || !rounds { usleep(20_000) }
        }
        let pid = try #require(watch, "the job runs the watch")
        defer { kill(pid, SIGKILL) }
        try #require(rounds, "the watch syncs a first round: \(read(out))")
        kill(pid, sig)
        var ended = false
        for _ in 0..<1500 where !ended {
            ended = !read(status).isEmpty
            if !ended { usleep(20_000) }
        }
        #expect(read(status) == ["status 0"], "the watch ends on signal \(sig) with exit 0: \(read(status)) \(read(out))")
        let summary = read(out).last ?? ""
        #expect(summary.contains("\"summary\":true") && summary.contains("\"rounds\":"), "a summary last: \(read(out))")
    }

    /// The processes whose parent is `parent` (from /proc).
    private func childProcesses(of parent: Int32) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.filter { pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            return status.split(separator: "\n").contains { $0 == "PPid:\t\(parent)" }
        }
    }
}

extension HubWatchCommandTests {
    @Test("--watch started while the hub cannot be reached keeps retrying (a refusal for good exits instead)")
    func watchRetriesAnUnreachableHub() throws {
        let fx = try HubFixture()
        let live = try ChildProcess("sync-tool", ["sync", fx.path("watched"), "postgresql://nobody:pw@127.0.0.1:1/db", "--watch"])
        defer { live.kill() }
        let deadline = Date().addingTimeInterval(30)
        while !live.errorOutput.contains("disconnected") && live.process.isRunning && Date() < deadline { usleep(20_000) }
        #expect(live.process.isRunning, "\(live.errorOutput)")
        #expect(live.errorOutput.contains("cannot reach the hub yet") && live.errorOutput.contains("retrying"), "\(live.errorOutput)")
        // The hub's owner is no account: that is not going to change by retrying.
        let notAnAccount = try ChildProcess("sync-tool", ["sync", fx.path("other"), fx.adminURL, "--watch"]).wait(timeout: 60)
        #expect(notAnAccount.status == 4 && notAnAccount.stderr.contains("no account"), "\(notAnAccount.stderr)")
    }
}

@Suite("The README's hub walkthrough", .offThePool)
struct HubReadmeTests {
    @Test("an owner that is not a superuser (CREATEROLE, owns the database) sets up the hub; two devices sync with PGPASSWORD")
    func walkthrough() throws {
        let server = try SharedPostgres.get()
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased()
        let root = try PostgresConnection(ConnectionString(server.url()))
        try root.execute("SELECT set_config('concord.pw', $1, false)", [.text("change-me-\(id)")])
        try root.execute("DO $$ BEGIN EXECUTE format('CREATE ROLE %I LOGIN CREATEROLE PASSWORD %L', 'hubadmin_\(id)', current_setting('concord.pw')); END $$")
        try root.execute("CREATE DATABASE settings_\(id) OWNER hubadmin_\(id)")
        let admin = server.url(database: "settings_\(id)", user: "hubadmin_\(id)", password: "change-me-\(id)")
        let tmp = try TemporaryDirectory("hub-readme")
        defer { tmp.remove() }

        #expect(try run("sync-tool", ["hub", "init", admin]).status == 0)
        #expect(try run("sync-tool", ["hub", "init", admin]).stdout.contains("nothing changed"))
        let added = try run("sync-tool", ["hub", "add-account", admin, "alice_\(id)"])
        #expect(added.status == 0, "\(added.stderr)")
        let password = try #require(added.lines.first { $0.contains("password:") }?.split(separator: " ").dropFirst().first.map(String.init))
        let hub = "postgresql://alice_\(id)@127.0.0.1:\(server.port)/settings_\(id)"
        let env = ["PGPASSWORD": password]
        #expect(try run("sync-tool", ["set", tmp.path("phone"), "prefs", "theme", "dark"]).status == 0)
        #expect(try ChildProcess("sync-tool", ["sync", tmp.path("phone"), hub], environment: env).wait().status == 0)
        #expect(try ChildProcess("sync-tool", ["sync", tmp.path("laptop"), hub], environment: env).wait().status == 0)
        #expect(try run("sync-tool", ["get", tmp.path("laptop"), "prefs", "theme"]).stdout == "dark\n")
        let stats = try run("sync-tool", ["hub", "stats", admin, "--json"])
        #expect(stats.status == 0 && stats.stdout.contains("\"rows\":1"), "\(stats.stderr)")
        #expect(try run("sync-tool", ["hub", "gc", admin, "--retention", "30"]).status == 0)
        // Without the password the login is refused: exit 5.
        #expect(try run("sync-tool", ["sync", tmp.path("laptop"), hub]).status == 5)
    }
}
