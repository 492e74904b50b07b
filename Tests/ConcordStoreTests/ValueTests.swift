import Foundation
import TestSupport
import Testing

@testable import Concord

@Suite("Typed values")
struct ValueTests {
    let suite: Concord.Suite

    init() throws { suite = try Store.temporary().suite("group.example.app") }

    @Test func everyTypeRoundTripsWithEdgeValues() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        try suite.set("", forKey: "empty")
        try suite.set("héllo 🌍\u{0}nul", forKey: "unicode")
        try suite.set(Int.min, forKey: "min")
        try suite.set(Int.max, forKey: "max")
        try suite.set(-0.0, forKey: "negzero")
        try suite.set(Double.infinity, forKey: "inf")
        try suite.set(Double.leastNonzeroMagnitude, forKey: "tiny")
        try suite.set(true, forKey: "yes")
        try suite.set(false, forKey: "no")
        try suite.set(Data(), forKey: "nodata")
        try suite.set(Data([0, 255, 1]), forKey: "data")
        try suite.set(date, forKey: "date")
        try suite.set(URL(string: "https://example.com/a?b=c#d")!, forKey: "url")
        try suite.set([1, 2, 3], forKey: "ints")
        try suite.set([String](), forKey: "noStrings")
        try suite.set(["a": [1.5], "b": []], forKey: "nested")
        let deep: Value = .dictionary(["l1": .array([.dictionary(["l3": .array([.int(1), .string("x"), .bool(false)])])])])
        try suite.set(deep, forKey: "deep")

        #expect(try suite.get("empty", as: String.self) == "")
        #expect(try suite.get("unicode", as: String.self) == "héllo 🌍\u{0}nul")
        #expect(try suite.get("min", as: Int.self) == Int.min)
        #expect(try suite.get("max", as: Int.self) == Int.max)
        let negzero = try #require(try suite.get("negzero", as: Double.self))
        #expect(negzero == 0 && negzero.sign == .minus)
        #expect(try suite.get("inf", as: Double.self) == .infinity)
        #expect(try suite.get("tiny", as: Double.self) == .leastNonzeroMagnitude)
        #expect(try suite.get("yes", as: Bool.self) == true)
        #expect(try suite.get("no", as: Bool.self) == false)
        #expect(try suite.get("nodata", as: Data.self) == Data())
        #expect(try suite.get("data", as: Data.self) == Data([0, 255, 1]))
        #expect(try suite.get("date", as: Date.self) == date)
        #expect(try suite.get("url", as: URL.self) == URL(string: "https://example.com/a?b=c#d"))
        #expect(try suite.get("ints", as: [Int].self) == [1, 2, 3])
        #expect(try suite.get("noStrings", as: [String].self) == [])
        #expect(try suite.get("nested", as: [String: [Double]].self) == ["a": [1.5], "b": []])
        #expect(try suite.value(forKey: "deep") == deep)
    }

    @Test func encodingIsDeterministic() throws {
        let a: Value = .dictionary(["z": .int(1), "a": .string("x"), "m": .array([.bool(true)])])
        var shuffled: [String: Value] = [:]
        for k in ["m", "a", "z"] { if case .dictionary(let d) = a { shuffled[k] = d[k] } }
        #expect(try ValueCodec.encode(a) == ValueCodec.encode(.dictionary(shuffled)))
    }

    @Test func nanIsRefusedAndNothingIsWritten() throws {
        expectError(.unsupportedValue) { try suite.set(Double.nan, forKey: "n") }
        expectError(.unsupportedValue) { try suite.set([1.0, .nan], forKey: "n") }
        #expect(try suite.contains("n") == false)
        #expect(try suite.store.lastSeq() == 0)
    }

    @Test func enumsAndCodableTypesAreStoredThroughTheirConformance() throws {
        enum Theme: String, StorableValue { case light, dark }
        enum Level: Int, StorableValue { case low = 1, high = 2 }
        struct Window: Codable, Equatable, StorableValue {
            var width: Int
            var title: String
            var scale: Double
            var tags: [String]
        }
        try suite.set(Theme.dark, forKey: "theme")
        try suite.set(Level.high, forKey: "level")
        let window = Window(width: 800, title: "Main", scale: 2.5, tags: ["a"])
        try suite.set(window, forKey: "window")
        #expect(try suite.get("theme", as: Theme.self) == .dark)
        #expect(try suite.get("level", as: Level.self) == .high)
        #expect(try suite.get("window", as: Window.self) == window)
        #expect(try suite.value(forKey: "theme") == .string("dark"))
        #expect(try suite.value(forKey: "level") == .int(2))
        #expect(try suite.value(forKey: "window")?.kind == .dictionary)
        try suite.set("purple", forKey: "theme")
        #expect(throws: ConcordError.typeMismatch(suite: "group.example.app", key: "theme", stored: "String purple", requested: "Theme")) {
            try suite.get("theme", as: Theme.self)
        }
        try suite.set(["width": 1], forKey: "window")
        #expect(
            throws: ConcordError.typeMismatch(
                suite: "group.example.app", key: "window",
                stored: "dictionary (no value for the key \"title\" at title; the dictionary has \"width\")",
                requested: "Window")
        ) {
            try suite.get("window", as: Window.self)
        }
    }

    @Test func wrongTypeReadIsATypedError() throws {
        try suite.set("forty-two", forKey: "answer")
        #expect(throws: ConcordError.typeMismatch(suite: "group.example.app", key: "answer", stored: "string", requested: "Int")) {
            try suite.get("answer", as: Int.self)
        }
        try suite.set(1.0, forKey: "one") // a Double is never read as an Int (the interop rules: NativeValueTests)
        #expect(throws: ConcordError.typeMismatch(suite: "group.example.app", key: "one", stored: "double", requested: "Int")) {
            try suite.get("one", as: Int.self)
        }
        try suite.set([1, 2], forKey: "list")
        expectError(.typeMismatch) { try suite.get("list", as: [String].self) }
        #expect(try suite.get("answer", as: String.self) == "forty-two")
    }

    @Test func badNamesAndOversizedInputsAreRefusedWithNothingWritten() throws {
        let store = suite.store
        for bad in ["", "../x", "a/b", "has space", "ü", String(repeating: "a", count: 129), ".", ".."] {
            expectError(.invalidSuiteName) { try store.suite(bad) }
        }
        #expect(try store.suite(String(repeating: "a", count: 128)).name.count == 128)
        expectError(.invalidKey) { try suite.set(1, forKey: "") }
        expectError(.invalidKey) { try suite.set(1, forKey: String(repeating: "k", count: 257)) }
        try suite.set(1, forKey: String(repeating: "k", count: 256))
        let big = Data(repeating: 1, count: 4 << 20)
        expectError(.valueTooLarge) { try suite.set(big, forKey: "big") }
        expectError(.valueTooLarge) {
            try suite.batch { b in
                try b.set(1, forKey: "first")
                try b.set(big, forKey: "big")
            }
        }
        #expect(try suite.contains("first") == false)
        #expect(try suite.contains("big") == false)
        var nested: Value = .int(0)
        for _ in 0..<100 { nested = .array([nested]) }
        expectError(.unsupportedValue) { try suite.set(nested, forKey: "deep") }
        #expect(try suite.keys() == [String(repeating: "k", count: 256)])
    }

    @Test func decoderRejectsMalformedBytes() {
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([]) }
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([99]) }
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([1, 5, 65]) }
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([4, 2]) }
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([8, 0xff, 0xff, 0xff, 0xff, 0x0f]) }
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([2, 0, 0, 0, 0, 0, 0, 0, 1, 7]) }
    }
}
