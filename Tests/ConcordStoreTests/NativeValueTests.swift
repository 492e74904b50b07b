import Foundation
import TestSupport
import Testing

@testable import Concord

/// `Float` and `UUID` stored natively, and the numeric interop rules: a number reads as another
/// numeric type only where that is exact and widening (an `Int` as a `Double` when the `Double`
/// holds it exactly; a `Float` as a `Double`), never narrowing or rounding.
@Suite struct NativeValueTests {
    @Test func floatsAndUUIDsRoundTripAsTheirOwnKinds() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let id = UUID()
        let floats: [Float] = [0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .pi, 0.1]
        try suite.set(id, forKey: "id")
        try suite.set(floats, forKey: "floats")
        try suite.set(["a": id], forKey: "ids")
        #expect(try suite.get("id", as: UUID.self) == id)
        #expect(try suite.value(forKey: "id") == .uuid(id))
        #expect(try suite.value(forKey: "id")?.typeName == "uuid")
        #expect(try suite.get("floats", as: [Float].self)?.map(\.bitPattern) == floats.map(\.bitPattern))
        #expect(try suite.value(forKey: "floats") == .array(floats.map(Value.float)))
        #expect(try suite.get("ids", as: [String: UUID].self) == ["a": id])
        expectError(.unsupportedValue) { try suite.set(Float.nan, forKey: "nan") }
        #expect(try suite.contains("nan") == false)
    }

    @Test func theCodecGivesEachItsOwnTagAndReadsEarlierEncodingsUnchanged() throws {
        #expect(try ValueCodec.encode(.float(1)) == [11, 0x3f, 0x80, 0, 0])
        let id = try #require(UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301"))
        #expect(try ValueCodec.encode(.uuid(id)) == [12, 0x3f, 0x25, 0x04, 0xe0, 0x4f, 0x89, 0x41, 0xd3, 0x9a, 0x0c, 0x03, 0x05, 0xe8, 0x2c, 0x33, 0x01])
        #expect(try ValueCodec.decode([11, 0x3f, 0x80, 0, 0]) == .float(1))
        #expect(try ValueCodec.decode(ValueCodec.encode(.uuid(id))) == .uuid(id))
        // What earlier versions wrote still reads the same (tags 1–10 are untouched).
        #expect(try ValueCodec.encode(.double(1)) == [3, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0])
        #expect(try ValueCodec.decode([3, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]) == .double(1))
        // A NaN float and a short UUID are damage, not values.
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([11, 0x7f, 0xc0, 0, 0]) }
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([12, 1, 2, 3]) }
    }

    /// What this build says about a tag a newer Concord wrote — the clear error every tag just past
    /// the newest gets (a tag far past it is damage, `aGarbageTagIsDamageNotANewerConcords`). (Releases
    /// from before tags 11 and 12 report "unknown type tag 11" for a float, and refuse the record as
    /// damaged: they never misread it.)
    @Test func aTagFromANewerConcordIsNamedAsSuch() {
        let newer = #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([13, 0]) }
        #expect("\(newer.map { "\($0)" } ?? "")".contains("a newer version of Concord wrote"))
        #expect("\(newer.map { "\($0)" } ?? "")".contains("upgrade Concord"))
        let zero = #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([0]) }
        #expect("\(zero.map { "\($0)" } ?? "")".contains("unknown type tag 0"))
    }

    /// Only a tag just past the newest (within 16) may be a newer Concord's; 200 or 255 is damage,
    /// and saying "upgrade" for it would send the user the wrong way.
    @Test func aGarbageTagIsDamageNotANewerConcords() {
        for tag: UInt8 in [29, 100, 200, 255] {
            let error = #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([tag, 0]) }
            #expect(error?.reason.contains("damaged") == true && error?.reason.contains("newer") == false, "tag \(tag): \(String(describing: error))")
            #expect(error?.writtenByNewerConcord == false)
        }
        for tag: UInt8 in [13, 28] {
            #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([tag, 0]) }
            #expect((try? ValueCodec.decode([tag, 0])) == nil)
        }
        let newest = #expect(throws: ValueDecodingError.self) { try ValueCodec.decode([28]) }
        #expect(newest?.writtenByNewerConcord == true)
        let policy = #expect(throws: ValueDecodingError.self) { try Record.decode([2] + [UInt8](repeating: 0, count: 24) + [200]) }
        #expect(policy?.reason.contains("damaged") == true, "\(String(describing: policy))")
        let newerPolicy = #expect(throws: ValueDecodingError.self) { try Record.decode([2] + [UInt8](repeating: 0, count: 24) + [5]) }
        #expect(newerPolicy?.writtenByNewerConcord == true, "\(String(describing: newerPolicy))")
    }

    @Test func numbersReadAsAnotherTypeOnlyWhenExactAndWidening() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.set(3, forKey: "int")
        try suite.set(1 << 53, forKey: "int53")
        try suite.set((1 << 53) + 1, forKey: "intInexact")
        try suite.set(Float(0.1), forKey: "float")
        try suite.set(3.0, forKey: "double")

        // An Int reads as a Double when the Double holds it exactly.
        #expect(try suite.get("int", as: Double.self) == 3)
        #expect(try suite.get("int53", as: Double.self) == 9_007_199_254_740_992)
        #expect(
            throws: ConcordError.typeMismatch(
                suite: "app", key: "intInexact", stored: "int 9007199254740993, which a Double cannot hold exactly", requested: "Double")
        ) {
            try suite.get("intInexact", as: Double.self)
        }
        // A Float reads as a Double (exactly: the Double of the Float, not of its decimal).
        #expect(try suite.get("float", as: Double.self) == Double(Float(0.1)))
        // Nothing narrows: a Double is not an Int or a Float (not even 3.0); a Float is not an Int;
        // an Int is not a Float.
        #expect(throws: ConcordError.typeMismatch(suite: "app", key: "double", stored: "double", requested: "Int")) { try suite.get("double", as: Int.self) }
        #expect(throws: ConcordError.typeMismatch(suite: "app", key: "double", stored: "double", requested: "Float")) {
            try suite.get("double", as: Float.self)
        }
        #expect(throws: ConcordError.typeMismatch(suite: "app", key: "float", stored: "float", requested: "Int")) { try suite.get("float", as: Int.self) }
        #expect(throws: ConcordError.typeMismatch(suite: "app", key: "int", stored: "int", requested: "Float")) { try suite.get("int", as: Float.self) }
        // A UUID is not a String, nor a String a UUID.
        try suite.set(UUID(), forKey: "id")
        try suite.set(UUID().uuidString, forKey: "idText")
        #expect(throws: ConcordError.typeMismatch(suite: "app", key: "id", stored: "uuid", requested: "String")) { try suite.get("id", as: String.self) }
        #expect(throws: ConcordError.typeMismatch(suite: "app", key: "idText", stored: "string", requested: "UUID")) { try suite.get("idText", as: UUID.self) }
        // Reading never rewrites: the stored kinds are unchanged.
        #expect(try suite.value(forKey: "int") == .int(3))
        #expect(try suite.value(forKey: "float") == .float(0.1))
    }

    struct Device: Codable, Equatable, StorableValue {
        var id: UUID
        var scale: Float
        var ratio: Double
    }

    @Test func codableTypesStoreFloatsAndUUIDsNativelyAndReadTheOldEncodings() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let device = Device(id: UUID(), scale: 1.5, ratio: 0.25)
        try suite.set(device, forKey: "device")
        #expect(try suite.value(forKey: "device") == .dictionary(["id": .uuid(device.id), "scale": .float(1.5), "ratio": .double(0.25)]))
        #expect(try suite.get("device", as: Device.self) == device)
        // As earlier versions stored them: a UUID as its string (UUID's own Codable), a Float as a double.
        try suite.set(Value.dictionary(["id": .string(device.id.uuidString), "scale": .double(1.5), "ratio": .float(0.25)]), forKey: "old")
        #expect(try suite.get("old", as: Device.self) == device)
    }

    @Test func jsonShowsFloatsAsNumbersAndUUIDsAsStrings() throws {
        let id = try #require(UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301"))
        #expect(JSONValue.render(.array([.float(0.1), .float(-.infinity), .uuid(id)])) == #"[0.1,-1e999,"3F2504E0-4F89-41D3-9A0C-0305E82C3301"]"#)
    }
}
