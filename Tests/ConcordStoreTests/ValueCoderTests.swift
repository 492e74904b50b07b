import Foundation
import TestSupport
import Testing

@testable import Concord

/// `ValueEncoder` and `ValueDecoder`: `Codable` types straight to `Value` and back, keeping dates,
/// data and URLs native, and still reading what the JSON bridge wrote.
@Suite("Codable ⇄ Value coder")
struct ValueCoderTests {
    let encoder = ValueEncoder()
    let decoder = ValueDecoder()

    // MARK: Round trips

    struct Window: Codable, Equatable {
        struct Frame: Codable, Equatable {
            var x: Int
            var y: Int
        }
        var width: Int
        var title: String
        var scale: Double
        var visible: Bool
        var tags: [String]
        var frame: Frame
        var opened: Date
        var icon: Data
        var home: URL
        var flags: [String: Bool]
    }

    @Test func aStructIsATypedDictionaryWithNativeDatesDataAndURLs() throws {
        let opened = Date(timeIntervalSinceReferenceDate: 817_791_217.037_089_1)
        let window = Window(
            width: 800, title: "Main", scale: 2.5, visible: true, tags: ["a", "b"],
            frame: .init(x: -3, y: 4), opened: opened, icon: Data([0, 255, 7]),
            home: URL(string: "https://example.com/a?b=c#d")!, flags: ["dark": false])
        let value = try roundTrip(window, throughBytes: false)
        #expect(
            value
                == .dictionary([
                    "width": .int(800), "title": .string("Main"), "scale": .double(2.5), "visible": .bool(true),
                    "tags": .array([.string("a"), .string("b")]),
                    "frame": .dictionary(["x": .int(-3), "y": .int(4)]),
                    "opened": .date(opened), "icon": .data(Data([0, 255, 7])),
                    "home": .url(URL(string: "https://example.com/a?b=c#d")!),
                    "flags": .dictionary(["dark": .bool(false)])
                ]))
    }

    enum Shape: Codable, Equatable {
        case point
        case circle(radius: Double)
        case rect(width: Int, height: Int)
        case labelled(String, Int)
        indirect case group([Shape], name: String?)
    }

    @Test func enumsWithAssociatedValuesRoundTrip() throws {
        let shapes: [Shape] = [
            .point, .circle(radius: 1.5), .rect(width: 3, height: 4), .labelled("x", 9),
            .group([.point, .group([], name: nil)], name: "g")
        ]
        for shape in shapes { try roundTrip(shape) }
        #expect(try encoder.encode(Shape.rect(width: 3, height: 4)) == .dictionary(["rect": .dictionary(["width": .int(3), "height": .int(4)])]))
        #expect(try encoder.encode(Shape.labelled("x", 9)) == .dictionary(["labelled": .dictionary(["_0": .string("x"), "_1": .int(9)])]))
        #expect(try encoder.encode(Shape.point) == .dictionary(["point": .dictionary([:])]))
        #expect(throws: DecodingError.self) { try decoder.decode(Shape.self, from: .dictionary(["hexagon": .dictionary([:])])) }
    }

    @Test func nestedArraysAndDictionariesRoundTrip() throws {
        try roundTrip([[1, 2], [], [3]])
        try roundTrip(["a": ["x": [1.5, -2]], "b": [:]])
        try roundTrip([["k": [true, false]], [:]])
        try roundTrip(Set(["one", "two"]))
        let intKeyed = try roundTrip([1: "one", -2: "minus two"])
        #expect(intKeyed == .dictionary(["1": .string("one"), "-2": .string("minus two")]))
        let dates = [["at": [Date(timeIntervalSinceReferenceDate: 0.000_000_1)]]]
        #expect(try decoder.decode([[String: [Date]]].self, from: encoder.encode(dates)) == dates)
    }

    struct Profile: Codable, Equatable {
        var name: String?
        var age: Int?
        var frame: Window.Frame?
        var nicknames: [String]?
    }

    @Test func absentOptionalsLeaveTheirKeysOut() throws {
        let empty = try roundTrip(Profile())
        #expect(empty == .dictionary([:]))
        let full = Profile(name: "Ada", age: 36, frame: .init(x: 1, y: 2), nicknames: [])
        #expect(
            try roundTrip(full)
                == .dictionary([
                    "name": .string("Ada"), "age": .int(36), "frame": .dictionary(["x": .int(1), "y": .int(2)]), "nicknames": .array([])
                ]))
        // A dictionary's nil entry is left out; so is an optional at the top level that holds a value.
        #expect(try encoder.encode(["a": 1, "b": nil] as [String: Int?]) == .dictionary(["a": .int(1)]))
        #expect(try encoder.encode(Optional(5)) == .int(5))
        #expect(try decoder.decode(Int?.self, from: .int(5)) == 5)
        #expect(try decoder.decode(Profile.self, from: .dictionary(["age": .int(3)])) == Profile(age: 3))
    }

    @Test func aMissingKeyDecodesAsNil() throws {
        struct Probe: Decodable {
            enum Keys: String, CodingKey { case here, gone }
            var hereIsNil: Bool, goneIsNil: Bool, goneThroughSuper: Int?, hereThroughSuper: Int?
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                hereIsNil = try c.decodeNil(forKey: .here)
                goneIsNil = try c.decodeNil(forKey: .gone)
                goneThroughSuper = try Int?(from: c.superDecoder(forKey: .gone))
                hereThroughSuper = try Int?(from: c.superDecoder(forKey: .here))
            }
        }
        let probe = try decoder.decode(Probe.self, from: .dictionary(["here": .int(1)]))
        #expect(!probe.hereIsNil && probe.goneIsNil)
        #expect(probe.goneThroughSuper == nil && probe.hereThroughSuper == 1)
    }

    @Test func nilWhereNoKeyCanBeLeftOutIsAnErrorNamingThePath() throws {
        let inArray = try encodingError { try encoder.encode(["list": [1, nil, 3]] as [String: [Int?]]) }
        #expect(inArray.path == "list[1]")
        #expect(inArray.description.contains("a Value cannot hold nil"))
        let topLevel = try encodingError { try encoder.encode(Int?.none) }
        #expect(topLevel.path == "the top level")
        #expect(topLevel.description.contains("a Value cannot hold nil"))
        struct WritesNil: Encodable {
            func encode(to encoder: any Encoder) throws {
                var items = encoder.unkeyedContainer()
                try items.encode(1)
                try items.encodeNil()
            }
        }
        #expect(try encodingError { try encoder.encode(["w": WritesNil()]) }.path == "w[1]")
    }

    struct Limits<I: FixedWidthInteger & Codable>: Codable, Equatable {
        var low: I
        var high: I
        var list: [I]
    }

    @Test func everyIntegerWidthRoundTripsAtItsLimits() throws {
        func check<I: FixedWidthInteger & Codable>(_ type: I.Type) throws {
            let limits = Limits(low: I.min, high: I.max, list: [I.min, 0, I.max])
            let value = try roundTrip(limits)
            #expect(
                value
                    == .dictionary([
                        "low": .int(Int(I.min)), "high": .int(Int(I.max)),
                        "list": .array([.int(Int(I.min)), .int(0), .int(Int(I.max))])
                    ]))
            try roundTrip(I.max)
            try roundTrip(I.min)
        }
        try check(Int.self)
        try check(Int8.self)
        try check(Int16.self)
        try check(Int32.self)
        try check(Int64.self)
        try check(UInt8.self)
        try check(UInt16.self)
        try check(UInt32.self)
        // Wider types round-trip within Int's range, and beyond it are errors naming the path.
        for big in [UInt64(Int.max), 0] {
            try roundTrip(big)
            try roundTrip(UInt(big))
            try roundTrip(Int128(big))
            try roundTrip(UInt128(big))
        }
        try roundTrip(Int128(Int.min))
        let unsigned = try encodingError { try encoder.encode(Limits(low: 0, high: UInt64.max, list: [])) }
        #expect(unsigned.path == "high")
        #expect(
            unsigned.description
                == "cannot encode the value at high: the UInt64 18446744073709551615 is above Int.max (9223372036854775807), outside the integers a Value can hold"
        )
        #expect(try encodingError { try encoder.encode(["u": [UInt(0), UInt.max]]) }.path == "u[1]")
        #expect(try encodingError { try encoder.encode(Int128(Int.min) - 1) }.description.contains("below Int.min"))
        #expect(try encodingError { try encoder.encode(UInt128(UInt64.max)) }.path == "the top level")
    }

    @Test func integersAreCheckedAgainstTheirRange() throws {
        let wide = try decodingError { try decoder.decode(Limits<Int8>.self, from: .dictionary(["low": .int(-128), "high": .int(128), "list": .array([])])) }
        #expect(wide.description == "expected Int8 at high, found int 128, outside Int8's range")
        #expect(try decodingError { try decoder.decode([UInt].self, from: .array([.int(1), .int(-1)])) }.path == "[1]")
        #expect(try decoder.decode(UInt64.self, from: .int(Int.max)) == UInt64(Int.max))
        #expect(try decoder.decode(Int128.self, from: .int(Int.min)) == Int128(Int.min))
        // A whole .double in range reads as an integer; a fraction or an out-of-range one does not.
        #expect(try decoder.decode(Int.self, from: .double(3)) == 3)
        #expect(try decoder.decode(UInt8.self, from: .double(255)) == 255)
        #expect(
            try decodingError { try decoder.decode(Int.self, from: .double(2.5)) }.description
                == "expected Int at the top level, found double 2.5, not a whole number in Int's range")
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .double(1e19)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .double(.infinity)) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: .double(-1)) }
    }

    struct Reals: Codable, Equatable {
        var double: Double
        var float: Float
    }

    @Test func floatingPointEdgeValuesRoundTripBitForBit() throws {
        let doubles: [Double] = [
            0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .pi, 0.1, 0x1p-1030
        ]
        let floats: [Float] = [
            0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .pi, 0.1, 0x1p-130
        ]
        for (double, float) in zip(doubles, floats) {
            let value = try encoder.encode(Reals(double: double, float: float))
            #expect(value == .dictionary(["double": .double(double), "float": .float(float)]))
            let back = try decoder.decode(Reals.self, from: ValueCodec.decode(ValueCodec.encode(value)))
            #expect(back.double.bitPattern == double.bitPattern)
            #expect(back.float.bitPattern == float.bitPattern)
        }
        #expect(try decoder.decode([Double].self, from: encoder.encode(doubles)).map(\.bitPattern) == doubles.map(\.bitPattern))
        #expect(try decoder.decode([Float].self, from: encoder.encode(floats)).map(\.bitPattern) == floats.map(\.bitPattern))
    }

    @Test func nanIsRefusedWhereverItIs() throws {
        let double = try encodingError { try encoder.encode(Reals(double: .nan, float: 1)) }
        #expect(double.path == "double")
        #expect(double.description == "cannot encode the value at double: NaN is not equal to itself, so Concord refuses it")
        #expect(try encodingError { try encoder.encode(Reals(double: 1, float: .signalingNaN)) }.path == "float")
        #expect(try encodingError { try encoder.encode(["a": [1, Double.nan]]) }.path == "a[1]")
        #expect(try encodingError { try encoder.encode(Float.nan) }.path == "the top level")
    }

    @Test func numbersReadAcrossIntAndDoubleOnlyWhenExact() throws {
        #expect(try decoder.decode(Double.self, from: .int(2)) == 2)
        #expect(try decoder.decode(Float.self, from: .int(-16_777_216)) == -16_777_216)
        #expect(
            try decodingError { try decoder.decode(Double.self, from: .int(9_007_199_254_740_993)) }.description
                == "expected Double at the top level, found int 9007199254740993, which a Double cannot hold exactly")
        #expect(throws: DecodingError.self) { try decoder.decode(Float.self, from: .int(16_777_217)) }
        #expect(
            try decodingError { try decoder.decode(Float.self, from: .double(1e300)) }.description
                == "expected Float at the top level, found double 1e+300, beyond Float's range")
        #expect(try decoder.decode(Float.self, from: .double(0.1)) == Float(0.1))
    }

    @Test func randomDatesReadBackEqualIncludingSubMicrosecondParts() throws {
        var random = SeededRandom(seed: 0xDA7E)
        var dates: [Date] = []
        for _ in 0..<500 { dates.append(Date(timeIntervalSinceReferenceDate: Double.random(in: -4e9...4e9, using: &random))) }
        for _ in 0..<500 { dates.append(Date().addingTimeInterval(Double.random(in: -1e-6...1e-6, using: &random))) }
        struct Stamped: Codable, Equatable {
            var at: Date
            var history: [Date]
        }
        for date in dates {
            #expect(try encoder.encode(date) == .date(date))
            #expect(try decoder.decode(Date.self, from: encoder.encode(date)) == date)
            let stamped = Stamped(at: date, history: [date, date.addingTimeInterval(1e-7)])
            #expect(try decoder.decode(Stamped.self, from: encoder.encode(stamped)) == stamped)
        }
    }

    @Test func dataAndURLsAreNative() throws {
        for data in [Data(), Data([0]), Data((0...255).map { UInt8($0) }), Data(repeating: 0xAB, count: 10_000)] {
            #expect(try roundTrip(data) == .data(data))
        }
        for text in ["https://example.com/a?b=c#d", "file:///tmp/a%20b", "mailto:ada@example.com", "https://xn--bcher-kva.example/ü"] {
            let url = try #require(URL(string: text))
            #expect(try roundTrip(url) == .url(url))
        }
        // A URL relative to a base is stored as its absolute URL, which is what the store reads back.
        let relative = try #require(URL(string: "b/c?d", relativeTo: URL(string: "https://example.com/a/")))
        let value = try encoder.encode(relative)
        #expect(value == .url(URL(string: "https://example.com/a/b/c?d")!))
        #expect(try ValueCodec.decode(ValueCodec.encode(value)) == value)
        #expect(try decoder.decode(URL.self, from: value).absoluteString == relative.absoluteString)
    }

    // MARK: Class hierarchies

    class Vehicle: Codable {
        var wheels: Int
        init(wheels: Int) { self.wheels = wheels }
    }

    /// Encodes its superclass under `super` (the `superEncoder()` convention).
    final class Car: Vehicle, Equatable {
        var model: String
        init(model: String, wheels: Int) {
            self.model = model
            super.init(wheels: wheels)
        }
        enum CodingKeys: String, CodingKey { case model }
        required init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            model = try c.decode(String.self, forKey: .model)
            try super.init(from: c.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(model, forKey: .model)
            try super.encode(to: c.superEncoder())
        }
        static func == (a: Car, b: Car) -> Bool { a.model == b.model && a.wheels == b.wheels }
    }

    /// Encodes its superclass under a key of its own, and shares its encoder in an array.
    final class Truck: Vehicle, Equatable {
        var load: Double
        init(load: Double, wheels: Int) {
            self.load = load
            super.init(wheels: wheels)
        }
        enum CodingKeys: String, CodingKey { case load, base }
        required init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            load = try c.decode(Double.self, forKey: .load)
            try super.init(from: c.superDecoder(forKey: .base))
        }
        override func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(load, forKey: .load)
            try super.encode(to: c.superEncoder(forKey: .base))
        }
        static func == (a: Truck, b: Truck) -> Bool { a.load == b.load && a.wheels == b.wheels }
    }

    /// Shares one encoder with its superclass: both write into the same dictionary.
    final class Bike: Vehicle, Equatable {
        var bell: Bool
        init(bell: Bool) {
            self.bell = bell
            super.init(wheels: 2)
        }
        enum CodingKeys: String, CodingKey { case bell }
        required init(from decoder: any Decoder) throws {
            bell = try decoder.container(keyedBy: CodingKeys.self).decode(Bool.self, forKey: .bell)
            try super.init(from: decoder)
        }
        override func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(bell, forKey: .bell)
            try super.encode(to: encoder)
        }
        static func == (a: Bike, b: Bike) -> Bool { a.bell == b.bell && a.wheels == b.wheels }
    }

    /// An array whose last element is its superclass's encoding (`superEncoder()` of an unkeyed container).
    final class Trailer: Vehicle, Equatable {
        var axles: [Int]
        init(axles: [Int]) {
            self.axles = axles
            super.init(wheels: axles.reduce(0, +))
        }
        required init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            axles = [try c.decode(Int.self), try c.decode(Int.self)]
            try super.init(from: c.superDecoder())
            #expect(c.isAtEnd)
        }
        override func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            for axle in axles { try c.encode(axle) }
            try super.encode(to: c.superEncoder())
        }
        static func == (a: Trailer, b: Trailer) -> Bool { a.axles == b.axles && a.wheels == b.wheels }
    }

    @Test func classHierarchiesEncodeTheirSuperclass() throws {
        #expect(try roundTrip(Car(model: "T", wheels: 4)) == .dictionary(["model": .string("T"), "super": .dictionary(["wheels": .int(4)])]))
        #expect(try roundTrip(Truck(load: 7.5, wheels: 18)) == .dictionary(["load": .double(7.5), "base": .dictionary(["wheels": .int(18)])]))
        #expect(try roundTrip(Bike(bell: true)) == .dictionary(["bell": .bool(true), "wheels": .int(2)]))
        #expect(try roundTrip(Trailer(axles: [2, 4])) == .array([.int(2), .int(4), .dictionary(["wheels": .int(6)])]))
        #expect(try roundTrip([Car(model: "a", wheels: 3)]) == .array([.dictionary(["model": .string("a"), "super": .dictionary(["wheels": .int(3)])])]))
        let missing = try decodingError { try decoder.decode(Car.self, from: .dictionary(["model": .string("T")])) }
        #expect(missing.description == "expected a dictionary at super, found nothing")
    }

    // MARK: Values the JSON bridge wrote

    struct Legacy: Codable, Equatable {
        var opened: Date
        var history: [Date]
        var icon: Data
        var home: URL
        var count: Int
        var ratio: Double
        var whole: Double
        var scale: Float
        var price: Decimal
        var note: String?
        var level: Int8
    }

    @Test func valuesTheJSONBridgeWroteStillDecode() throws {
        let legacy = Legacy(
            opened: Date(timeIntervalSince1970: 1_700_000_000.123_456), history: [Date(timeIntervalSince1970: 5)],
            icon: Data([1, 2, 3, 250]), home: URL(string: "https://example.com/a%20b?q=1")!,
            count: 42, ratio: 0.25, whole: 2, scale: 0.1, price: Decimal(string: "12.5")!, note: nil, level: -8)
        let old = try CodableBridge.value(from: legacy)
        // What the bridge stored: dates as milliseconds since 1970, data as base64, a whole Double as an int.
        guard case .dictionary(let fields) = old else {
            Issue.record("the bridge wrote \(old)")
            return
        }
        #expect(fields["icon"] == .string("AQID+g=="))
        #expect(fields["home"]?.kind == .string)
        #expect(fields["whole"] == .int(2))
        #expect(fields["history"] == .array([.int(5000)]))
        #expect(fields["opened"]?.kind == .double)

        let read = try decoder.decode(Legacy.self, from: old)
        #expect(read == (try CodableBridge.decode(Legacy.self, from: old)))
        #expect(read.icon == legacy.icon && read.home == legacy.home && read.count == 42 && read.whole == 2)
        #expect(read.scale == 0.1 && read.price == Decimal(string: "12.5")! && read.note == nil && read.level == -8)
        #expect(abs(read.opened.timeIntervalSince(legacy.opened)) < 0.001)
        #expect(read.history == legacy.history)

        // The same through a real store: the value the bridge made, stored as the first release stored it.
        let suite = try Store.temporary().suite("legacy")
        try suite.set(old, forKey: "legacy")
        #expect(try decoder.decode(Legacy.self, from: #require(try suite.value(forKey: "legacy"))) == read)
    }

    @Test func compatibilityReadsAreLimitedToTheirTypes() throws {
        #expect(try decoder.decode(Date.self, from: .string("2026-11-29T22:42:14.125Z")) == Date(timeIntervalSince1970: 1_795_992_134.125))
        #expect(try decoder.decode(Date.self, from: .string("2026-11-29T22:42:14Z")) == Date(timeIntervalSince1970: 1_795_992_134))
        #expect(try decoder.decode(Date.self, from: .int(-1500)) == Date(timeIntervalSince1970: -1.5))
        #expect(
            try decodingError { try decoder.decode(Date.self, from: .string("yesterday")) }.description
                == "expected Date at the top level, found string \"yesterday\", not an ISO 8601 date")
        #expect(
            try decodingError { try decoder.decode(Data.self, from: .string("not base64!")) }.description
                == "expected Data at the top level, found a string, not base64")
        #expect(
            try decodingError { try decoder.decode(URL.self, from: .string("")) }.description
                == "expected URL at the top level, found string \"\", not a URL")
        // Strict everywhere else: nothing else turns into a string, a bool, a date or a URL.
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: .int(1)) }
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: .url(URL(string: "https://a.b")!)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Bool.self, from: .int(1)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .bool(true)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .string("1")) }
        #expect(throws: DecodingError.self) { try decoder.decode(Double.self, from: .date(Date())) }
        #expect(throws: DecodingError.self) { try decoder.decode(Date.self, from: .bool(true)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Data.self, from: .array([.int(1)])) }
        #expect(throws: DecodingError.self) { try decoder.decode(URL.self, from: .data(Data())) }
        // A Decimal round-trips through its own Codable form, and still reads from the number JSON wrote.
        let price = Decimal(string: "-1234.5678")!
        #expect(try decoder.decode(Decimal.self, from: encoder.encode(price)) == price)
        #expect(try decoder.decode(Decimal.self, from: .int(7)) == 7)
    }

    @Test func typesWithoutDatesDataOrURLsEncodeAsTheBridgeDid() throws {
        struct Plain: Codable {
            var name: String
            var count: Int
            var ratio: Double
            var on: Bool
            var shape: Shape
            var tags: [String: [Int]]
            var note: String?
        }
        let plain = Plain(
            name: "n", count: -3, ratio: 0.5, on: true, shape: .group([.circle(radius: 0.25)], name: nil),
            tags: ["a": [1, 2], "b": []], note: nil)
        #expect(try encoder.encode(plain) == CodableBridge.value(from: plain))
    }

    // MARK: Errors and determinism

    @Test func decodingErrorsNameThePathAndWhatWasFound() throws {
        let settings: Value = .dictionary(["window": .dictionary(["width": .string("wide"), "height": .int(600)])])
        struct Settings: Codable {
            struct Size: Codable {
                var width: Int
                var height: Int
            }
            var window: Size
        }
        let mismatch = try decodingError { try decoder.decode(Settings.self, from: settings) }
        #expect(mismatch.description == "expected Int at window.width, found string")
        #expect(mismatch.path == "window.width")
        guard case .typeMismatch(let type, _)? = mismatch.error else {
            Issue.record("\(mismatch.error as Any)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))

        let missing = try decodingError { try decoder.decode(Settings.self, from: .dictionary(["window": .dictionary(["heigth": .int(1), "width": .int(2)])])) }
        #expect(missing.description == "no value for the key \"height\" at window.height; the dictionary has \"heigth\", \"width\"")
        guard case .keyNotFound(let key, _)? = missing.error else {
            Issue.record("\(missing.error as Any)")
            return
        }
        #expect(key.stringValue == "height")

        #expect(try decodingError { try decoder.decode(Settings.self, from: .array([])) }.description == "expected a dictionary at the top level, found array")
        #expect(
            try decodingError { try decoder.decode([[Int]].self, from: .array([.array([]), .int(1)])) }.description == "expected an array at [1], found int")
        #expect(try decodingError { try decoder.decode(Window.Frame.self, from: .dictionary(["x": .int(1), "y": .double(.infinity)])) }.path == "y")
        struct Pair: Decodable {
            var a: Int, b: Int
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                a = try c.decode(Int.self)
                b = try c.decode(Int.self)
            }
        }
        let short = try decodingError { try decoder.decode([String: Pair].self, from: .dictionary(["p": .array([.int(1)])])) }
        #expect(short.description == "expected Int at p[1], found the end of an array of 1 element")
        guard case .valueNotFound? = short.error else {
            Issue.record("\(short.error as Any)")
            return
        }
    }

    @Test func anUnkeyedElementIsConsumedOnlyWhenItDecodes() throws {
        struct Either: Decodable {
            var items: [String] = []
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                while !c.isAtEnd {
                    if let n = try? c.decode(Int.self) { items.append("int \(n)") } else { items.append("string " + (try c.decode(String.self))) }
                }
            }
        }
        #expect(try decoder.decode(Either.self, from: .array([.int(1), .string("two")])).items == ["int 1", "string two"])
    }

    @Test func misusedEncodersAreErrorsNotCrashes() throws {
        struct TwoKinds: Encodable {
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(1)
                var keyed = encoder.container(keyedBy: ShapeKey.self)
                try keyed.encode(2, forKey: .side)
            }
        }
        struct TwoValues: Encodable {
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(1)
                try single.encode("again")
            }
        }
        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
        #expect(
            try encodingError { try encoder.encode(["k": TwoKinds()]) }.description
                == "cannot encode the value at k: a keyed container was asked for after a value")
        #expect(try encodingError { try encoder.encode([TwoValues()]) }.description == "cannot encode the value at [0]: a value was encoded after a value")
        #expect(try encodingError { try encoder.encode(Nothing()) }.description == "cannot encode the value at the top level: Nothing did not encode anything")
        // Nested, a value that encodes nothing is an empty dictionary, as with JSONEncoder.
        #expect(try encoder.encode(["k": Nothing()]) == .dictionary(["k": .dictionary([:])]))
    }
    enum ShapeKey: String, CodingKey { case side }

    @Test func encodingIsDeterministic() throws {
        var random = SeededRandom(seed: 7)
        var big: [String: [String: Int]] = [:]
        for i in 0..<300 { big["key\(Int.random(in: 0..<1_000_000, using: &random))"] = ["n\(i)": i, "m": -i] }
        let window = Window(
            width: 1, title: "t", scale: 1, visible: false, tags: [], frame: .init(x: 0, y: 0),
            opened: Date(), icon: Data([9]), home: URL(string: "https://a.example")!, flags: ["a": true, "b": false, "c": true])
        let first = try encoder.encode(big)
        let second = try encoder.encode(big)
        #expect(first == second)
        #expect(try ValueCodec.encode(first) == ValueCodec.encode(second))
        let copy = big.merging([:]) { a, _ in a } // another dictionary instance, same contents
        #expect(try ValueCodec.encode(encoder.encode(copy)) == ValueCodec.encode(first))
        #expect(try encoder.encode(window) == encoder.encode(window))
        #expect(try ValueCodec.encode(encoder.encode(window)) == ValueCodec.encode(encoder.encode(window)))
    }

    @Test func encodedValuesGoThroughARealStore() throws {
        let suite = try Store.temporary().suite("coder")
        let window = Window(
            width: 640, title: "Ünïcode 🌍", scale: -0.0, visible: true, tags: ["x"], frame: .init(x: 1, y: -1),
            opened: Date(timeIntervalSince1970: 1_700_000_000.5), icon: Data([1]), home: URL(string: "https://a.example/p")!, flags: [:])
        try suite.set(try encoder.encode(window), forKey: "window")
        let stored = try #require(try suite.value(forKey: "window"))
        #expect(stored.kind == .dictionary)
        #expect(try decoder.decode(Window.self, from: stored) == window)
        // Out-of-range and NaN values never reach the store.
        #expect(throws: EncodingError.self) { try suite.set(try encoder.encode(Reals(double: .nan, float: 0)), forKey: "nan") }
        #expect(try suite.contains("nan") == false)
    }

    @Test func currentDatesReadBackEqualFromAStore() throws {
        // `Date` holds seconds since 2001; the first format stored seconds since 1970, and converting
        // lost the last bit of about half of today's dates. The value codec now stores what `Date` holds.
        let suite = try Store.temporary().suite("dates")
        let date = Date(timeIntervalSinceReferenceDate: 817_791_217.037_089_2)
        try suite.set(try encoder.encode(date), forKey: "now")
        #expect(try decoder.decode(Date.self, from: #require(try suite.value(forKey: "now"))) == date)
    }

    // MARK: Helpers

    /// Encodes `value`, checks it decodes back `==` (and, through `ValueCodec`'s bytes, unchanged), returns the `Value`.
    @discardableResult
    func roundTrip<T: Codable & Equatable>(_ value: T, throughBytes: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws -> Value {
        let encoded = try encoder.encode(value)
        #expect(try decoder.decode(T.self, from: encoded) == value, sourceLocation: sourceLocation)
        if throughBytes {
            let stored = try ValueCodec.decode(ValueCodec.encode(encoded))
            #expect(stored == encoded, sourceLocation: sourceLocation)
            #expect(try decoder.decode(T.self, from: stored) == value, sourceLocation: sourceLocation)
        }
        return encoded
    }

    struct Failure<E: Error> {
        var error: E?
        var path: String
        var description: String
    }

    func encodingError<R>(_ body: () throws -> R) throws -> Failure<EncodingError> {
        do { _ = try body() } catch let error as EncodingError {
            guard case .invalidValue(_, let context) = error else { return Failure(error: error, path: "?", description: "\(error)") }
            return Failure(error: error, path: CodingPathText.describe(context.codingPath), description: context.debugDescription)
        }
        Issue.record("expected an EncodingError")
        return Failure(error: nil, path: "", description: "")
    }

    func decodingError<R>(_ body: () throws -> R) throws -> Failure<DecodingError> {
        do { _ = try body() } catch let error as DecodingError {
            let context: DecodingError.Context
            switch error {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): context = c
            @unknown default: return Failure(error: error, path: "?", description: "\(error)")
            }
            return Failure(error: error, path: CodingPathText.describe(context.codingPath), description: context.debugDescription)
        }
        Issue.record("expected a DecodingError")
        return Failure(error: nil, path: "", description: "")
    }
}

/// The first release's path for `Codable` values, through JSON (dates as milliseconds since 1970,
/// data as base64): kept here to make the values that release stored, which must stay readable.
enum CodableBridge {
    static func value<T: Encodable>(from value: T) throws -> Value {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return try JSONValue.parse(try encoder.encode(value))
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: Value) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(T.self, from: try JSONValue.serialize(value))
    }
}
