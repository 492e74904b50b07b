import Concord
import Foundation
import TestSupport
import Testing

/// Odd bytes on the command line, values over the size limit and collections nested without end:
/// each is refused with a clear error (or stored exactly), never a crash, a hang or a silent change.
@Suite(.offThePool) struct HostileInputTests {
    /// Expects no raw control characters (other than line ends, and tabs where they separate columns) in `text`.
    static func expectPrintable(_ text: String, tabsSeparateColumns: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        let raw = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n" && !(tabsSeparateColumns && $0 == "\t")) || $0.value == 0x7f }
        #expect(raw.isEmpty, "error messages escape control characters: \(text.debugDescription.prefix(300))", sourceLocation: sourceLocation)
    }

    @Test func argumentsThatAreNotUTF8AreRefusedNotMerged() throws {
        let tmp = try TemporaryDirectory("concord-args-utf8")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try #require(run("sync-tool", ["set", dir, "app", "plain", "ok"], timeout: 60).exited(0))
        // Two keys that differ only in bytes that are not UTF-8 would both become "k\u{FFFD}".
        for (what, script) in [
            ("a key", #"exec "$BIN/sync-tool" set "$0" app "$(printf 'k\377')" one"#),
            ("another key", #"exec "$BIN/sync-tool" set "$0" app "$(printf 'k\376')" two"#),
            ("a value", #"exec "$BIN/sync-tool" set "$0" app k "$(printf 'v\342\234')""#),
            ("a suite", #"exec "$BIN/sync-tool" set "$0" "$(printf 'a\377')" k v"#),
            ("a key to get", #"exec "$BIN/sync-tool" get "$0" app "$(printf 'k\377')""#)
        ] {
            let outcome = try run(
                "/bin/sh", ["-c", script.replacingOccurrences(of: "\"$0\"", with: "'\(dir)'")], environment: ["BIN": Binaries.directory], timeout: 60)
            #expect(outcome.exited(3), "\(what) that is not UTF-8: exit 3 (invalid input): \(outcome)")
            #expect(outcome.stderr.contains("not valid UTF-8"), "\(what): \(outcome.stderr)")
        }
        let elsewhere = tmp.path("other")
        let outcome = try run(
            "/bin/sh", ["-c", #"exec "$BIN/sync-tool" set "$(printf '\#(elsewhere)\377')" app k v"#], environment: ["BIN": Binaries.directory], timeout: 60)
        #expect(outcome.exited(3), "a directory that is not UTF-8: \(outcome)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.root).sorted() == ["replica"], "no directory was created for it")
        #expect(try StoreContents.list(dir, suite: "app") == ["plain": "ok"], "nothing was written")
        figure("CLI arguments not UTF-8", "keys, values, suites and directories with invalid bytes: exit 3, \(outcome.stderr.trimmed)")
    }

    @Test func controlCharactersAreStoredExactlyAndPrintedEscaped() throws {
        let tmp = try TemporaryDirectory("concord-args-control")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let key = "line\nbreak\ttab\u{1}\u{1b}[31m"
        let value = "bell\u{7}\u{7f}escape\u{1b}]0;title\u{7}"
        try #require(run("sync-tool", ["set", dir, "app", key, value], timeout: 60).exited(0))
        let get = try run("sync-tool", ["get", dir, "app", key], timeout: 60)
        #expect(get.exited(0) && get.stdout == value + "\n", "the value comes back byte for byte: \(get)")
        let list = try run("sync-tool", ["list", dir], timeout: 60)
        #expect(list.exited(0) && list.lines.count == 1, "one line per record, whatever the key holds: \(list)")
        #expect(list.lines.first?.split(separator: "\t").count == 4, "suite, key, type and value in four columns: \(list.stdout.debugDescription)")
        Self.expectPrintable(list.stdout, tabsSeparateColumns: true)
        for args in [["get", dir, "app", "missing\u{1b}[2J\u{7}"], ["s\u{1}et"], ["set", "--\u{1b}bad", dir]] {
            let outcome = try run("sync-tool", args, timeout: 60)
            #expect(!outcome.exited(0) && !outcome.signaled, "\(args): \(outcome)")
            Self.expectPrintable(outcome.stderr)
        }
        figure("CLI control characters", "stored and read back exactly; list and error lines escape them")
    }

    @Test func veryLongArgumentsAreRefusedOrStoredExactly() throws {
        let tmp = try TemporaryDirectory("concord-args-long")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let longKey = String(repeating: "k", count: 100_000)
        let key = try run("sync-tool", ["set", dir, "app", longKey, "v"], timeout: 60)
        #expect(key.exited(3) && key.stderr.contains("over the limit of 256"), "a 100,000-byte key: \(key)")
        #expect(key.stderr.count < 1_000, "the message quotes a long key only in part (\(key.stderr.count) characters)")
        let suite = try run("sync-tool", ["set", dir, String(repeating: "s", count: 100_000), "k", "v"], timeout: 60)
        #expect(suite.exited(3) && suite.stderr.contains("over the limit of 128"), "a 100,000-byte suite name: \(suite)")
        let option = try run("sync-tool", ["list", dir, "--" + String(repeating: "o", count: 100_000)], timeout: 60)
        #expect(option.exited(2) && option.stderr.count < 1_000, "a 100,000-byte option: \(option.stderr.prefix(200))")
        let longValue = String(repeating: "é", count: 60_000) // 120,000 bytes, within one argument's limit
        try #require(run("sync-tool", ["set", dir, "app", "long", longValue], timeout: 60).exited(0))
        let get = try run("sync-tool", ["get", dir, "app", "long"], timeout: 60)
        #expect(get.exited(0) && get.stdout == longValue + "\n", "a 120,000-byte value comes back exactly")
        let empty = try run("sync-tool", ["set", dir, "app", "", "v"], timeout: 60)
        #expect(empty.exited(3) && empty.stderr.contains("empty"), "an empty key: \(empty)")
        figure(
            "CLI very long arguments",
            "100,000-byte key, suite and option refused (exit 3, 3, 2) with messages under 1,000 characters; a 120,000-byte value stored exactly")
    }

    @Test func valuesOverTheLimitAreRefusedAndNothingIsWritten() throws {
        let tmp = try TemporaryDirectory("concord-huge")
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("replica"))
        let suite = try store.suite("app")
        try suite.set("small", forKey: "before")
        let seq = try store.lastSeq()
        let limit = store.options.maxValueBytes

        // Encoded data is a tag byte, a 4-byte length and the bytes: exactly the limit fits, one more does not.
        let fits = Data(repeating: 0xAA, count: limit - 5)
        try suite.set(fits, forKey: "at-limit")
        #expect(try suite.get("at-limit", as: Data.self) == fits)
        let afterFit = try store.lastSeq()
        #expect(throws: ConcordError.valueTooLarge(key: "over-limit", bytes: limit + 1, limit: limit)) {
            try suite.set(Data(repeating: 0xBB, count: limit - 4), forKey: "over-limit")
        }
        var refusal = ""
        do { try suite.set(Data(repeating: 0xCC, count: 5 << 20), forKey: "huge") } catch { refusal = "\(error)" }
        #expect(refusal.contains("over the limit of \(limit) bytes"), "a clear message: \(refusal)")
        expectError(.valueTooLarge, "one value over the limit refuses the whole batch") {
            try suite.batch { b in
                try b.set("fine", forKey: "batch-small")
                try b.set(Data(repeating: 0xDD, count: 5 << 20), forKey: "batch-huge")
            }
        }
        expectError(.valueTooLarge, "a value built up in an update is limited too") {
            try suite.update("grown", as: String.self) { $0 = String(repeating: "g", count: limit) }
        }
        #expect(try store.lastSeq() == afterFit, "nothing was written by a refused value")
        #expect(afterFit == seq + 1)
        for key in ["over-limit", "huge", "batch-small", "batch-huge", "grown"] { #expect(try !suite.contains(key)) }
        #expect(try store.integrityReport().isSound)
        figure(
            "values over the limit",
            "\(limit - 5) data bytes (exactly \(limit) encoded) stored; one byte more, 5 MiB, a batch holding 5 MiB and an update growing to 4 MiB refused: \(refusal)"
        )
    }

    @Test func deeplyNestedCollectionsAreRefusedWithoutOverflowingTheStack() throws {
        let tmp = try TemporaryDirectory("concord-nested")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        var figures: [String] = []
        for (kind, depth, stored) in [
            ("array", 64, true), ("array", 65, false), ("dictionary", 65, false),
            ("array", 100_000, false), ("dictionary", 100_000, false)
        ] {
            let outcome = try run("concord-test-helper", ["set-nested", dir, "deep", kind, String(depth)])
            try #require(outcome.exited(0), "setting \(kind)s nested \(depth) deep must not crash: \(outcome)")
            let seqs = outcome.lines.filter { $0.hasPrefix("last-seq ") }
            if stored {
                #expect(outcome.lines.contains("stored"), "\(depth) levels are allowed: \(outcome.stdout)")
            } else {
                let refusal = outcome.lines.first { $0.hasPrefix("refused ") } ?? ""
                #expect(refusal.contains("nested deeper than 64 levels"), "\(kind)s nested \(depth) deep: \(outcome.stdout)")
                #expect(seqs.count == 2 && seqs[0] == seqs[1], "nothing was written: \(seqs)")
                figures.append("\(kind) \(depth): refused in \(Int(outcome.milliseconds)) ms")
            }
        }
        let json = "[" + String(repeating: "[", count: 59_999) + String(repeating: "]", count: 60_000)
        let cli = try run("sync-tool", ["set", dir, "deep", "json", json, "--type", "json"], timeout: 60)
        #expect(cli.exited(3) && cli.stderr.contains("nested deeper than 64 levels"), "JSON nested 60,000 deep from the CLI: \(cli)")
        try StoreContents.expectSound(dir)
        figure("deeply nested collections", "64 levels stored; " + figures.joined(separator: "; ") + "; JSON 60,000 deep from the CLI: exit 3")
    }

    @Test func notANumberIsRefused() throws {
        let tmp = try TemporaryDirectory("concord-nan")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let cli = try run("sync-tool", ["set", dir, "app", "x", "nan", "--type", "double"], timeout: 60)
        #expect(cli.exited(3), "NaN from the CLI: \(cli)")
        let store = try Store(path: dir)
        expectError(.unsupportedValue) { try store.suite("app").set(Double.nan, forKey: "x") }
        expectError(.unsupportedValue) { try store.suite("app").set([1.0, .nan], forKey: "y") }
        #expect(try store.lastSeq() == 0)
    }
}
