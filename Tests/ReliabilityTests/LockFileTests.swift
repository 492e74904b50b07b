import Concord
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An operator deletes or replaces `lock.mdb` while processes use the store. A second lock file means a
/// second write lock: two writers would commit over each other. A writer notices before it commits
/// and stops with a clear error; a process opening the store while others hold the old lock file is
/// refused; nothing acknowledged is lost and the store stays sound. Every process here is real.
@Suite(.offThePool) struct LockFileTests {
    enum Mistake: String, CaseIterable, Sendable { case deleted, replaced }

    static func apply(_ mistake: Mistake, to dir: String) throws {
        switch mistake {
        case .deleted:
            try FileManager.default.removeItem(atPath: dir + "/lock.mdb")
        case .replaced:
            // A copy of the same bytes, renamed over it: another file at the path.
            try FileManager.default.copyItem(atPath: dir + "/lock.mdb", toPath: dir + "/lock.copy")
            #expect(rename(dir + "/lock.copy", dir + "/lock.mdb") == 0)
        }
    }

    /// The keys a `write` helper acknowledged ("done I" after each durable set of PREFIX-I).
    static func acknowledged(_ lines: [String], prefix: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in lines where line.hasPrefix("done ") {
            let i = String(line.dropFirst(5))
            out["\(prefix)-\(i)"] = i
        }
        return out
    }

    @Test(
        "lock.mdb deleted or replaced while a writer runs, then a second writer starts: no crash, the first stops before committing, every acknowledged write is there",
        arguments: Mistake.allCases)
    func lockFileGoneUnderAWriter(_ mistake: Mistake) throws {
        let tmp = try TemporaryDirectory("concord-lock-\(mistake.rawValue)")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        #expect(try run("sync-tool", ["set", dir, "app", "seed", "0"], timeout: 60).exited(0))
        let first = try ChildProcess("concord-test-helper", ["write", dir, "app", "first", "1000000"])
        defer { first.kill() }
        try #require(first.waitForLine { $0 == "done 100" }, "the first writer writes: \(first.errorOutput)")
        try Self.apply(mistake, to: dir)
        var second = try run("concord-test-helper", ["write", dir, "app", "second", "200"])
        let firstEnd = first.wait(timeout: 60)

        #expect(!firstEnd.signaled && !firstEnd.timedOut, "the first writer neither crashes nor keeps writing: \(firstEnd)")
        #expect(firstEnd.exited(4), "it stops with an error: \(firstEnd)")
        #expect(firstEnd.stderr.contains("lock file (lock.mdb) was deleted or replaced while this process had the store open"), "\(firstEnd.stderr)")
        #expect(!second.signaled, "the second writer does not crash: \(second)")
        var refusedAtOpen = false
        if !second.exited(0) {
            // It opened while the first still held the old lock file: refused, nothing written. Now it can.
            refusedAtOpen = true
            #expect(second.exited(4) && second.stderr.contains("through a lock file (lock.mdb) that was deleted or replaced"), "\(second)")
            #expect(second.lines.isEmpty, "the refused writer wrote nothing: \(second.lines.prefix(3))")
            second = try run("concord-test-helper", ["write", dir, "app", "second", "200"])
        }
        #expect(second.exited(0), "with the first writer gone, a writer works: \(second)")

        try StoreContents.expectSound(dir)
        let stored = try StoreContents.list(dir, suite: "app")
        var expected = Self.acknowledged(firstEnd.lines, prefix: "first").merging(Self.acknowledged(second.lines, prefix: "second")) { a, _ in a }
        expected["seed"] = "0"
        let missing = expected.filter { stored[$0.key] != $0.value }.keys.sorted()
        #expect(missing.isEmpty, "every acknowledged write is there with its value; missing or wrong: \(missing.prefix(10))")
        figure(
            "lock file \(mistake.rawValue) under a writer",
            "the first writer acknowledged \(Self.acknowledged(firstEnd.lines, prefix: "first").count) sets and stopped (exit 4); the second was \(refusedAtOpen ? "refused at open while the first ran, then " : "")written 200; check sound; \(firstEnd.stderr.trimmed.prefix(160))"
        )
    }

    @Test(
        "lock.mdb deleted or replaced while a reader holds the store: a new process is refused at open (exit 4, one line) and the store stays sound",
        arguments: Mistake.allCases)
    func lockFileGoneUnderAReader(_ mistake: Mistake) throws {
        let tmp = try TemporaryDirectory("concord-lock-reader-\(mistake.rawValue)")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        #expect(try run("sync-tool", ["set", dir, "app", "kept", "1"], timeout: 60).exited(0))
        let holder = try ChildProcess("concord-test-helper", ["hold-read", dir])
        defer { holder.kill() }
        try #require(holder.waitForLine { $0 == "holding" }, "\(holder.errorOutput)")
        try Self.apply(mistake, to: dir)
        for command in [["set", dir, "app", "new", "2"], ["get", dir, "app", "kept"]] {
            let refused = try run("sync-tool", command, timeout: 60)
            #expect(refused.exited(4), "\(command[0]) is refused while the old lock file is in use: \(refused)")
            #expect(
                refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("lock file (lock.mdb) that was deleted or replaced"),
                "\(refused.stderr)")
        }
        holder.kill()
        _ = holder.wait(timeout: 10)
        #expect(try run("sync-tool", ["set", dir, "app", "new", "2"], timeout: 60).exited(0), "once no process holds the old lock file, writes work")
        try StoreContents.expectSound(dir)
        StoreContents.expectEqual(try StoreContents.list(dir, suite: "app"), ["kept": "1", "new": "2"])
    }
}
