import Concord
import Foundation
import TestSupport
import Testing

/// What is stored depends on the value's type alone — never on how a key's default is spelled — so a
/// value written through one key, wrapper or API reads through any other of the same type.
@Suite struct StorageByTypeTests {
    @Test func optionalKeysStoreTheWrappedTypeWhateverTheirDefault() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let s = box.suite
        let someDate = Date(timeIntervalSinceReferenceDate: 817_791_217.037_089_2)
        let someInt = 41
        let someString = "x"
        let someURL = URL(string: "https://example.com/a")!
        let someData = Data([1, 2])

        // The same key name written through keys whose defaults are spelled differently.
        let dates: [Key<Date?>] = [Key("d", default: someDate), Key("d"), Key("d", default: nil)]
        for (i, key) in dates.enumerated() {
            let value = someDate + Double(i)
            s[key] = value
            #expect(try s.value(forKey: "d") == .date(value), "key spelled #\(i)")
            #expect(try s.get("d", as: Date.self) == value)
            for other in dates { #expect(s[other] == value, "read through every spelling") }
        }
        let ints: [Key<Int?>] = [Key("i", default: someInt), Key("i", default: 5), Key("i")]
        for key in ints {
            s[key] = 7
            #expect(try s.value(forKey: "i") == .int(7))
        }
        let strings: [Key<String?>] = [Key("s", default: someString), Key("s", default: "literal"), Key("s")]
        for key in strings {
            s[key] = "v"
            #expect(try s.value(forKey: "s") == .string("v"))
        }
        let urls: [Key<URL?>] = [Key("u", default: someURL), Key("u")]
        for key in urls {
            s[key] = someURL
            #expect(try s.value(forKey: "u") == .url(someURL))
        }
        let datas: [Key<Data?>] = [Key("b", default: someData), Key("b")]
        for key in datas {
            s[key] = someData
            #expect(try s.value(forKey: "b") == .data(someData))
        }
        #expect(ReportedErrors.of(suite: s.name).isEmpty)
    }

    @Test func aStoredPropertyWithAVariableDefaultStoresANativeDate() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let someDate = Date(timeIntervalSinceReferenceDate: 817_791_217.5)
        @Stored("opened", in: box.suite) var opened: Date? = someDate
        #expect(opened == someDate, "the default before anything is stored")
        let now = Date()
        opened = now
        #expect(try box.suite.value(forKey: "opened") == .date(now))
        #expect(try box.suite.get("opened", as: Date.self) == now)
        @Stored("opened", in: box.suite) var sameKey: Date?
        #expect(sameKey == now)
        opened = nil
        #expect(try box.suite.contains("opened") == false, "nil removes the key")
        #expect(opened == someDate)
    }

    @Test func theCommandLineReadsWhatAKeyWrote() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let someDate = Date(timeIntervalSince1970: 1_795_991_730.5)
        box.suite[Key<Date?>("when", default: someDate)] = someDate
        let got = try run("sync-tool", ["get", box.path, box.suite.name, "when", "--json"])
        #expect(got.status == 0)
        #expect(got.stdout.contains(#""type":"date""#) && got.stdout.contains("2026-11-29T22:35:30.500Z"), "\(got.stdout)")
    }
}
