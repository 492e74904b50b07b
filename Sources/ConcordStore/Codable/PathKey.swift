/// A coding key the coder makes itself: an array element's index, or `super` for a superclass's
/// encoding (what `superEncoder()` and `superDecoder()` use when no key is given).
///
/// ```swift
/// PathKey(index: 2).stringValue   // "2"; shown as "[2]" in a coding path
/// PathKey.super.stringValue       // "super"
/// ```
struct PathKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) { self.init(index: intValue) }

    init(index: Int) {
        self.stringValue = String(index)
        self.intValue = index
    }

    /// The key a superclass's encoding is stored under.
    static let `super` = PathKey(stringValue: "super")
}
