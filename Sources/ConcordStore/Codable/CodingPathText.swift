/// Renders a coding path the way errors show it: keys joined by dots, array elements as `[n]`.
///
/// ```swift
/// CodingPathText.describe([PathKey(stringValue: "windows"), PathKey(index: 2), PathKey(stringValue: "width")])   // "windows[2].width"
/// CodingPathText.describe([])   // "the top level"
/// ```
enum CodingPathText {
    static func describe(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the top level" }
        var text = ""
        for key in path {
            if key is PathKey, let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}
