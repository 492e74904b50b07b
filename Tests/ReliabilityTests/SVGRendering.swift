import Foundation
import FoundationXML
import TestSupport

/// Renders an SVG the way a reader would see it — with rsvg-convert (librsvg) and with headless
/// Chromium — and reads what it says: whether it is well-formed XML and what text it draws.
enum SVGRendering {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A rendered PNG: its size on disk and the pixel size its header declares.
    struct PNG {
        let path: String
        let bytes: Int
        let width: Int
        let height: Int
    }

    /// `name`'s path on `$PATH` (Debian puts the tools in /usr/bin).
    static func tool(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") { return "\(dir)/\(name)" }
        throw Failure(description: "\(name) is not installed (Scripts/install-deps.sh installs it)")
    }

    /// `xmllint --noout`: the document is well-formed XML; the error text when it is not.
    static func wellFormed(_ svg: String) throws -> String? {
        let result = try run(try tool("xmllint"), ["--noout", svg])
        return result.status == 0 ? nil : result.stderr
    }

    /// The `width` and `height` of the root `<svg>` and the text of every `<text>` element (unescaped).
    static func contents(_ svg: String) throws -> (width: Int, height: Int, texts: [String]) {
        let collector = TextCollector()
        guard let parser = XMLParser(contentsOf: URL(fileURLWithPath: svg)) else { throw Failure(description: "cannot read \(svg)") }
        parser.delegate = collector
        guard parser.parse() else { throw Failure(description: "\(svg) does not parse: \(String(describing: parser.parserError))") }
        return (collector.width, collector.height, collector.texts)
    }

    /// rsvg-convert's PNG of `svg`, at the SVG's own size.
    static func rsvg(_ svg: String, to png: String) throws -> PNG {
        let result = try run(try tool("rsvg-convert"), ["--format", "png", "--output", png, svg], timeout: 120)
        guard result.status == 0 else { throw Failure(description: "rsvg-convert \(svg) exited \(result.status): \(result.stderr)") }
        return try read(png)
    }

    /// Headless Chromium's screenshot of `svg` in a window of `width` × `height` (a profile of its own,
    /// so runs beside each other never share one).
    static func chromium(_ svg: String, to png: String, width: Int, height: Int) throws -> PNG {
        let profile = NSTemporaryDirectory() + "/concord-chromium-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let result = try run(
            try tool("chromium"),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)", "--screenshot=\(png)",
                "--window-size=\(width),\(height)", "file://" + svg
            ], timeout: 180)
        guard result.status == 0, FileManager.default.fileExists(atPath: png) else {
            throw Failure(description: "chromium --screenshot of \(svg) exited \(result.status): \(result.stderr.suffix(2_000))")
        }
        return try read(png)
    }

    /// A white SVG of the given size: what a blank chart would render to, to compare sizes with.
    static func blank(width: Int, height: Int, at path: String) throws {
        let text =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\"><rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/></svg>"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The PNG's size and its IHDR width and height (bytes 16–23, big-endian).
    static func read(_ path: String) throws -> PNG {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard data.count > 24, Array(data.prefix(8)) == signature else { throw Failure(description: "\(path) is not a PNG (\(data.count) bytes)") }
        func be32(_ offset: Int) -> Int { data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return PNG(path: path, bytes: data.count, width: be32(16), height: be32(20))
    }

    private final class TextCollector: NSObject, XMLParserDelegate {
        var width = 0
        var height = 0
        var texts: [String] = []
        private var current: String?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            if name == "svg" {
                width = Int(Double(attributes["width"] ?? "") ?? 0)
                height = Int(Double(attributes["height"] ?? "") ?? 0)
            }
            if name == "text" { current = "" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text", let current { texts.append(current) }
            if name == "text" { current = nil }
        }
    }
}
