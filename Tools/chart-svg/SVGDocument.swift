import Foundation

/// An SVG image built element by element and written out as text: the charts of `bench --svg` and
/// `stress-test --timeline`. Every piece of text and every attribute value is escaped, so a label
/// holding `<`, `&` or quotes still gives a well-formed document.
package struct SVGDocument {
    package enum Anchor: String {
        case start, middle, end
    }

    package let width: Double
    package private(set) var height: Double
    private var body: [String] = []

    /// The fonts the charts ask for: DejaVu Sans (Debian's default) first, so widths estimated by
    /// `TextWidth` hold for both rsvg-convert and Chromium here.
    package static let fontFamily = "DejaVu Sans, Liberation Sans, Arial, sans-serif"

    package init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Sets the height once the layout knows it.
    package mutating func resize(height: Double) { self.height = height }

    package mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil, opacity: Double? = nil, tooltip: String? = nil
    ) {
        var attributes = [("x", Self.number(x)), ("y", Self.number(y)), ("width", Self.number(max(0, width))), ("height", Self.number(max(0, height)))]
        attributes.append(("fill", fill))
        if let stroke { attributes.append(("stroke", stroke)) }
        if let opacity { attributes.append(("fill-opacity", Self.number(opacity))) }
        element("rect", attributes, tooltip: tooltip)
    }

    package mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dash: String? = nil) {
        var attributes = [
            ("x1", Self.number(x1)), ("y1", Self.number(y1)), ("x2", Self.number(x2)), ("y2", Self.number(y2)), ("stroke", stroke),
            ("stroke-width", Self.number(width))
        ]
        if let dash { attributes.append(("stroke-dasharray", dash)) }
        element("line", attributes)
    }

    package mutating func polyline(_ points: [(x: Double, y: Double)], stroke: String, width: Double = 1.5) {
        guard !points.isEmpty else { return }
        let list = points.map { Self.number($0.x) + "," + Self.number($0.y) }.joined(separator: " ")
        element(
            "polyline", [("points", list), ("fill", "none"), ("stroke", stroke), ("stroke-width", Self.number(width)), ("stroke-linejoin", "round")])
    }

    package mutating func circle(cx: Double, cy: Double, r: Double, fill: String, stroke: String? = nil, tooltip: String? = nil) {
        var attributes = [("cx", Self.number(cx)), ("cy", Self.number(cy)), ("r", Self.number(r)), ("fill", fill)]
        if let stroke { attributes.append(("stroke", stroke)) }
        element("circle", attributes, tooltip: tooltip)
    }

    /// A closed shape through `points` (a marker such as a triangle).
    package mutating func polygon(_ points: [(x: Double, y: Double)], fill: String, tooltip: String? = nil) {
        let list = points.map { Self.number($0.x) + "," + Self.number($0.y) }.joined(separator: " ")
        element("polygon", [("points", list), ("fill", fill)], tooltip: tooltip)
    }

    package mutating func text(
        _ content: String, x: Double, y: Double, size: Double = 12, anchor: Anchor = .start, bold: Bool = false, fill: String = "#222",
        rotate: Double? = nil
    ) {
        var attributes = [("x", Self.number(x)), ("y", Self.number(y)), ("font-size", Self.number(size)), ("fill", fill)]
        if anchor != .start { attributes.append(("text-anchor", anchor.rawValue)) }
        if bold { attributes.append(("font-weight", "bold")) }
        if let rotate { attributes.append(("transform", "rotate(\(Self.number(rotate)) \(Self.number(x)) \(Self.number(y)))")) }
        body.append("<text" + Self.attributes(attributes) + ">" + Self.escape(content) + "</text>")
    }

    /// The whole document: an XML declaration, the `<svg>` root with its size and a white background.
    package func render() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" "
        out += "viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" font-family=\"\(Self.escape(Self.fontFamily))\">\n"
        out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        out += body.joined(separator: "\n")
        out += "\n</svg>\n"
        return out
    }

    /// Writes the document to `path` (atomically: a reader never sees half a chart).
    package func write(to path: String) throws {
        try Data(render().utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Text made safe for XML character data and attribute values.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 allows no control characters but tab, newline and carriage return.
                if scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r" {
                    out += " "
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A coordinate with at most two decimals and no exponent.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format: "%.2f", rounded)
    }

    private mutating func element(_ name: String, _ attributes: [(String, String)], tooltip: String? = nil) {
        if let tooltip {
            body.append("<\(name)" + Self.attributes(attributes) + "><title>" + Self.escape(tooltip) + "</title></\(name)>")
        } else {
            body.append("<\(name)" + Self.attributes(attributes) + "/>")
        }
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }
}
