import Concord
import Foundation
import TestSupport
import Testing

@testable import SyncToolCore

/// Runs `sync-tool` in-process and captures what it prints.
struct Invocation {
    let status: Int32
    let out: [String]
    let err: [String]

    init(_ arguments: [String], out: Collector<String> = Collector<String>(), err: Collector<String> = Collector<String>()) {
        status = SyncTool.run(arguments, io: CommandIO(out: { out.append($0) }, err: { err.append($0) }))
        self.out = out.values
        self.err = err.values
    }
}

@Suite("sync-tool commands", .offThePool)
struct SyncToolTests {
    let tmp: TemporaryDirectory
    let dir: String

    init() throws {
        tmp = try TemporaryDirectory()
        dir = tmp.path("r")
    }

    @Test func setAndGetEveryType() throws {
        let cases: [(String, String, String)] = [
            ("string", "hello world", "hello world"), ("int", "-42", "-42"), ("double", "2.5", "2.5"),
            ("bool", "true", "true"), ("data", "AAEC", "AAEC"), ("date", "2026-11-29T12:00:00Z", "2026-11-29T12:00:00.000Z"),
            ("url", "https://example.com/x", "https://example.com/x"), ("float", "0.1", "0.1"),
            ("uuid", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "3F2504E0-4F89-41D3-9A0C-0305E82C3301"),
            ("json", #"{"b":[1,2.5,"x"],"a":true}"#, #"{"a":true,"b":[1,2.5,"x"]}"#)
        ]
        for (type, input, printed) in cases {
            let set = Invocation(["set", dir, "app", type, input, "--type", type])
            #expect(set.status == 0, "set \(type): \(set.err)")
            let got = Invocation(["get", dir, "app", type])
            #expect(got.status == 0, "get \(type): \(got.err)")
            #expect(got.out == [printed], "type \(type)")
        }
        let json = Invocation(["get", dir, "app", "int", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out[0].utf8)) as? [String: Any])
        #expect(object["suite"] as? String == "app")
        #expect(object["key"] as? String == "int")
        #expect(object["type"] as? String == "int")
        #expect(object["value"] as? Int == -42)
        #expect((object["version"] as? String)?.contains("@") == true)
        // Floats and UUIDs are stored natively, and --json names their types.
        for (key, type, value) in [("float", "float", "0.1"), ("uuid", "uuid", #""3F2504E0-4F89-41D3-9A0C-0305E82C3301""#)] {
            let native = Invocation(["get", dir, "app", key, "--json"])
            #expect(native.out.first?.contains(#""type":"\#(type)","value":\#(value)"#) == true, "\(native.out)")
        }
        let store = try Store(path: dir)
        #expect(try store.suite("app").value(forKey: "float") == .float(0.1))
        #expect(try store.suite("app").get("uuid", as: UUID.self) == UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301"))
    }

    @Test func exitCodesNameWhatWasWrong() {
        #expect(Invocation(["set", dir, "app", "k", "v"]).status == 0)
        let missing = Invocation(["get", dir, "app", "nope"])
        #expect(missing.status == 1)
        #expect(missing.err.first?.contains("nope") == true)
        #expect(Invocation(["frobnicate"]).status == 2)
        #expect(Invocation([]).status == 2)
        let flag = Invocation(["get", dir, "app", "k", "--bogus"])
        #expect(flag.status == 2)
        #expect(flag.err.first?.contains("--bogus") == true)
        #expect(Invocation(["get", dir, "app"]).status == 2)
        #expect(Invocation(["get", dir, "app", "k", "extra"]).status == 2)
        let badInt = Invocation(["set", dir, "app", "k", "12x", "--type", "int"])
        #expect(badInt.status == 3)
        #expect(badInt.err.first?.contains("12x") == true)
        #expect(Invocation(["set", dir, "app", "k", "v", "--type", "color"]).status == 2)
        #expect(Invocation(["set", dir, "../x", "k", "v"]).status == 3)
        #expect(Invocation(["set", dir, "app", String(repeating: "k", count: 300), "v"]).status == 3)
        #expect(Invocation(["set", dir, "app", "k", "{", "--type", "json"]).status == 3)
        #expect(Invocation(["set", dir, "app", "k", "NaN", "--type", "double"]).status == 3)
        #expect(Invocation(["set", dir, "app", "k", "nan", "--type", "float"]).status == 3)
        let tooBig = Invocation(["set", dir, "app", "k", "1e39", "--type", "float"])
        #expect(tooBig.status == 3)
        #expect(tooBig.err.first?.contains("beyond Float's range") == true)
        let badUUID = Invocation(["set", dir, "app", "k", "not-a-uuid", "--type", "uuid"])
        #expect(badUUID.status == 3)
        #expect(badUUID.err.first?.contains("not-a-uuid") == true)
        #expect(Invocation(["get", tmp.path("absent"), "app", "k"]).status == 4)
        // Nothing bad was written.
        #expect(Invocation(["get", dir, "app", "k"]).out == ["v"])
        #expect(Invocation(["list", dir]).out.count == 1)
    }

    @Test func everyCommandHasHelp() {
        for command in SyncTool.commands {
            let help = Invocation([command.spec.name, "--help"])
            #expect(help.status == 0)
            #expect(help.out.first?.hasPrefix("Usage: sync-tool \(command.spec.name)") == true)
        }
        #expect(Invocation(["--help"]).out.first?.contains("Commands:") == true)
    }

    @Test func incrDeleteResetListSuitesInfoCheckLog() throws {
        #expect(Invocation(["incr", dir, "app", "n"]).out == ["1"])
        #expect(Invocation(["incr", dir, "app", "n", "10"]).out == ["11"])
        #expect(Invocation(["incr", dir, "app", "n", "-20"]).out == ["-9"])
        #expect(Invocation(["set", dir, "app", "s", "text"]).status == 0)
        #expect(Invocation(["incr", dir, "app", "s"]).status == 3)
        #expect(Invocation(["set", dir, "other", "x", "1", "--type", "int"]).status == 0)
        #expect(Invocation(["suites", dir]).out == ["app", "other"])
        #expect(Invocation(["list", dir, "app"]).out == ["app\tn\tint\t-9", "app\ts\tstring\ttext"])
        let lines = Invocation(["list", dir, "--json"]).out
        #expect(lines.count == 3)
        #expect(Invocation(["delete", dir, "app", "s"]).status == 0)
        #expect(Invocation(["delete", dir, "app", "s"]).status == 1)
        #expect(Invocation(["reset", dir, "other"]).status == 0)
        #expect(Invocation(["list", dir]).out == ["app\tn\tint\t-9"])
        let log = Invocation(["log", dir])
        #expect(log.out.count == 3)
        #expect(log.out.contains { $0.contains("\tother\tx\tdeleted\t") })
        let since = Invocation(["log", dir, "app", "--since", "3", "--json"])
        #expect(since.out.allSatisfy { $0.contains("\"suite\":\"app\"") })
        #expect(Invocation(["log", dir, "--since", "x"]).status == 3)
        let info = Invocation(["info", dir, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.out[0].utf8)) as? [String: Any])
        #expect(object["format"] as? Int == Int(Store.formatVersion))
        #expect(object["records"] as? Int == 3)
        #expect(Invocation(["check", dir]).status == 0)
    }

    @Test func watchPrintsChangesAndStopsAfterCount() throws {
        #expect(Invocation(["set", dir, "app", "k", "0"]).status == 0)
        let stderr = Collector<String>()
        let printed = Collector<String>()
        let writer = Thread {
            _ = stderr.wait(for: 1) // "watching …" is printed once the watch has subscribed
            for i in 1...3 {
                _ = Invocation(["set", dir, "app", "k", "\(i)", "--type", "int"])
                _ = printed.wait(for: i) // rewrites of one key not yet delivered would be compacted
            }
        }
        writer.start()
        let watch = Invocation(["watch", dir, "app", "k", "--json", "--count", "3", "--timeout", "60"], out: printed, err: stderr)
        #expect(watch.status == 0)
        #expect(watch.out.count == 3)
        #expect(watch.out.last?.contains("\"value\":3") == true)
        #expect(watch.out.allSatisfy { $0.contains("\"origin\":\"this-process\"") })
        let quiet = Invocation(["watch", dir, "--timeout", "0.2"])
        #expect(quiet.status == 0)
        #expect(quiet.out.isEmpty)
    }
}
