import Concord
import Foundation
import TestSupport
import Testing

/// Dictionaries keyed by something other than `String` (`StorableDictionaryKey`): stored as the
/// string-keyed `Value.dictionary` with each key's string form, read back as the key type, as a
/// `[String: …]`, by another process and by `sync-tool`; keys that are not the key type's strings
/// are a type mismatch that names them.
@Suite struct DictionaryKeyTests {
    enum Pane: String, StorableValue, StorableDictionaryKey { case editor, sidebar }
    enum Level: Int, StorableValue, StorableDictionaryKey { case low = 1, high = 10 }
    /// A key type of the user's own, storable through `LosslessStringConvertible`.
    struct Version: LosslessStringConvertible, StorableDictionaryKey {
        let major: Int
        let minor: Int
        init(major: Int, minor: Int) { (self.major, self.minor) = (major, minor) }
        init?(_ description: String) {
            let parts = description.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
            (self.major, self.minor) = (major, minor)
        }
        var description: String { "\(major).\(minor)" }
    }
    struct Layout: Codable, Equatable, StorableValue {
        var columns: [Int: String]
    }
    struct Placement: Codable, Equatable, StorableValue {
        var byID: [UUID: Int]
    }

    /// Writes `value`, checks the stored string-keyed dictionary and the typed read.
    func roundTrip<K: StorableDictionaryKey, V: StorableValue & Equatable>(
        _ value: [K: V], stored: [String: Value], in suite: Suite, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let key = "d-\(K.self)"
        try suite.set(value, forKey: key)
        #expect(try suite.value(forKey: key) == .dictionary(stored), "stored as the string-keyed dictionary", sourceLocation: sourceLocation)
        #expect(try suite.get(key, as: [K: V].self) == value, "read back as [\(K.self): \(V.self)]", sourceLocation: sourceLocation)
    }

    @Test func everyKeyTypeRoundTripsThroughItsStringForm() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let s = box.suite
        try roundTrip(
            [1: "one", -2: "minus two", Int.max: "max", Int.min: "min"],
            stored: [
                "1": .string("one"), "-2": .string("minus two"), "9223372036854775807": .string("max"), "-9223372036854775808": .string("min")
            ], in: s)
        try roundTrip([Int8.min: 1, Int8.max: 2], stored: ["-128": .int(1), "127": .int(2)], in: s)
        try roundTrip([Int16.min: 1, Int16.max: 2], stored: ["-32768": .int(1), "32767": .int(2)], in: s)
        try roundTrip([Int32.min: 1, Int32.max: 2], stored: ["-2147483648": .int(1), "2147483647": .int(2)], in: s)
        try roundTrip([Int64.min: 1, Int64.max: 2], stored: ["-9223372036854775808": .int(1), "9223372036854775807": .int(2)], in: s)
        try roundTrip([UInt.max: 1, 0: 2], stored: ["18446744073709551615": .int(1), "0": .int(2)], in: s)
        try roundTrip([UInt8.max: 1], stored: ["255": .int(1)], in: s)
        try roundTrip([UInt16.max: 1], stored: ["65535": .int(1)], in: s)
        try roundTrip([UInt32.max: 1], stored: ["4294967295": .int(1)], in: s)
        try roundTrip([UInt64.max: 1], stored: ["18446744073709551615": .int(1)], in: s)
        try roundTrip(
            [0.1: "tenth", -0.0: "zero", .infinity: "inf", 1e300: "big"],
            stored: [
                "0.1": .string("tenth"), "-0.0": .string("zero"), "inf": .string("inf"), "1e+300": .string("big")
            ], in: s)
        try roundTrip([Float(0.1): true, -Float.infinity: false], stored: ["0.1": .bool(true), "-inf": .bool(false)], in: s)
        try roundTrip([true: "yes", false: "no"], stored: ["true": .string("yes"), "false": .string("no")], in: s)
        try roundTrip([Character("é"): 1, "🙂": 2], stored: ["é": .int(1), "🙂": .int(2)], in: s)
        let id = UUID(uuidString: "3F2A0000-0000-4000-8000-00000000ABCD")!
        try roundTrip([id: 7], stored: ["3F2A0000-0000-4000-8000-00000000ABCD": .int(7)], in: s)
        try roundTrip([Pane.editor: 0.7, .sidebar: 0.3], stored: ["editor": .double(0.7), "sidebar": .double(0.3)], in: s)
        try roundTrip([Level.low: "l", .high: "h"], stored: ["1": .string("l"), "10": .string("h")], in: s)
        try roundTrip([Version(major: 2, minor: 10): "current"], stored: ["2.10": .string("current")], in: s)
        try roundTrip(["plain": 1], stored: ["plain": .int(1)], in: s)
        try roundTrip([Int: String](), stored: [:], in: s)
        // Nested, and optional values (a nil entry is left out, as for string keys).
        try roundTrip([1: [id: ["a", "b"]]], stored: ["1": .dictionary(["3F2A0000-0000-4000-8000-00000000ABCD": .array([.string("a"), .string("b")])])], in: s)
        try s.set([1: "one", 2: nil] as [Int: String?], forKey: "optional")
        #expect(try s.value(forKey: "optional") == .dictionary(["1": .string("one")]))
        #expect(try s.get("optional", as: [Int: String?].self) == [1: "one"])
        #expect(ReportedErrors.of(suite: s.name).isEmpty)
    }

    /// How such a dictionary is stored depends on its type alone: a string-keyed read, a `Key`, `@Stored`
    /// and a `Codable` type holding the same dictionary all agree.
    @Test func everyWayOfReadingAgrees() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let s = box.suite
        try s.set([3: "three", 4: "four"], forKey: "names")
        #expect(try s.get("names", as: [String: String].self) == ["3": "three", "4": "four"], "the same dictionary, keyed by strings")
        let names = Key("names", default: [Int: String]())
        #expect(s[names] == [3: "three", 4: "four"])
        s[names] = [5: "five"]
        #expect(try s.value(forKey: "names") == .dictionary(["5": .string("five")]))
        @Stored("widths", in: s) var widths: [Pane: Double] = [:]
        widths = [.editor: 0.6]
        #expect(try s.value(forKey: "widths") == .dictionary(["editor": .double(0.6)]))
        #expect(try s.get("widths", as: [Pane: Double].self) == [.editor: 0.6])
        // A Codable type encodes its [Int: String] with the same string keys.
        try s.set(Layout(columns: [1: "name", 2: "size"]), forKey: "layout")
        #expect(try s.value(forKey: "layout") == .dictionary(["columns": .dictionary(["1": .string("name"), "2": .string("size")])]))
        #expect(try s.get("layout", as: Layout.self) == Layout(columns: [1: "name", 2: "size"]))
        try s.set(["columns": [7: "kind"]] as [String: [Int: String]], forKey: "layout")
        #expect(try s.get("layout", as: Layout.self) == Layout(columns: [7: "kind"]), "a Codable type reads what the dictionary wrote")
        // Inside a Codable type, Codable decides: a dictionary keyed by anything but strings and Ints is an
        // array of keys and values there.
        let id = UUID(uuidString: "3F2A0000-0000-4000-8000-00000000ABCD")!
        try s.set(Placement(byID: [id: 3]), forKey: "placement")
        #expect(try s.value(forKey: "placement") == .dictionary(["byID": .array([.uuid(id), .int(3)])]))
        #expect(try s.get("placement", as: Placement.self) == Placement(byID: [id: 3]))
        #expect(ReportedErrors.of(suite: s.name).isEmpty)
    }

    @Test func keysThatDoNotConvertBackAreATypeMismatchNamingThem() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let s = box.suite
        try s.set(["1": "one", "abc": "x", "zzz": "y"], forKey: "names")
        #expect(
            throws: ConcordError.typeMismatch(
                suite: s.name, key: "names", stored: #"dictionary whose key "abc" is not a Int"#, requested: "[Int: String]")
        ) { try s.get("names", as: [Int: String].self) }
        let error = #expect(throws: ConcordError.self) { try s.get("names", as: [Int: String].self) }
        #expect(error?.description.contains(#"holds a dictionary whose key "abc" is not a Int, not a [Int: String]"#) == true, "\(String(describing: error))")

        try s.set(["1": "one", "01": "also one"], forKey: "twice")
        #expect(
            throws: ConcordError.typeMismatch(
                suite: s.name, key: "twice", stored: #"dictionary whose keys "01" and "1" both read as the Int 1"#, requested: "[Int: String]")
        ) { try s.get("twice", as: [Int: String].self) }

        try s.set(["300": 1], forKey: "wide")
        #expect(throws: ConcordError.self, "300 is no UInt8") { try s.get("wide", as: [UInt8: Int].self) }
        try s.set(["not-a-uuid": 1, "3F2A0000-0000-4000-8000-00000000ABCD": 2], forKey: "ids")
        #expect(
            throws: ConcordError.typeMismatch(
                suite: s.name, key: "ids", stored: #"dictionary whose key "not-a-uuid" is not a UUID"#, requested: "[UUID: Int]")
        ) { try s.get("ids", as: [UUID: Int].self) }
        try s.set(["editor": 1, "toolbar": 2], forKey: "panes")
        #expect(throws: ConcordError.self, "toolbar is no Pane") { try s.get("panes", as: [Pane: Int].self) }
        #expect(try s.get("panes", as: [String: Int].self) == ["editor": 1, "toolbar": 2], "nothing was changed by the failed reads")
    }

    @Test func wrongTypesAreATypeMismatch() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let s = box.suite
        try s.set([1: "one"], forKey: "names")
        #expect(
            throws: ConcordError.typeMismatch(suite: s.name, key: "names", stored: "dictionary holding a string", requested: "[Int: Int]")
        ) { try s.get("names", as: [Int: Int].self) }
        #expect(throws: ConcordError.self, "a dictionary is not an array") { try s.get("names", as: [String].self) }
        try s.set(["one"], forKey: "list")
        #expect(throws: ConcordError.typeMismatch(suite: s.name, key: "list", stored: "array", requested: "[Int: String]")) {
            try s.get("list", as: [Int: String].self)
        }
        try s.set(42, forKey: "number")
        #expect(throws: ConcordError.self) { try s.get("number", as: [Int: String].self) }
    }

    /// Another process (the command line) sees the dictionary a key wrote, and writes one a typed read takes.
    @Test(.offThePool) func theCommandLineShowsAndWritesThem() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.suite.set([2: "two", 1: "one"], forKey: "names")
        let got = try run("sync-tool", ["get", box.path, box.suite.name, "names"])
        #expect(got.exited(0) && got.stdout == #"{"1":"one","2":"two"}"# + "\n", "\(got)")
        let json = try run("sync-tool", ["get", box.path, box.suite.name, "names", "--json"])
        #expect(json.exited(0) && json.stdout.contains(#""type":"dictionary""#), "\(json)")

        let set = try run("sync-tool", ["set", box.path, box.suite.name, "levels", #"{"1":"low","10":"high"}"#, "--type", "json"])
        #expect(set.exited(0), "\(set)")
        #expect(try box.suite.get("levels", as: [Level: String].self) == [.low: "low", .high: "high"])
        #expect(try box.suite.get("levels", as: [Int: String].self) == [1: "low", 10: "high"])
    }
}
