/// An estimate of how wide a line of text is drawn, so charts can lay out labels without a font
/// renderer: DejaVu Sans's average advance is about 0.6 em for mixed text (digits and capitals wider,
/// punctuation and `i`/`l` narrower).
package enum TextWidth {
    package static func of(_ text: String, size: Double, bold: Bool = false) -> Double {
        var ems = 0.0
        for c in text {
            switch c {
            case "i", "l", "j", "'", "|", ".", ",", ":", ";", "!", " ": ems += 0.32
            case "f", "t", "r", "(", ")", "[", "]", "-": ems += 0.42
            case "m", "w", "M", "W", "—", "%": ems += 0.92
            case _ where c.isUppercase: ems += 0.72
            case _ where c.isNumber: ems += 0.64
            default: ems += 0.6
            }
        }
        return ems * size * (bold ? 1.08 : 1)
    }

    /// `text` cut (with an ellipsis) to fit `width`.
    package static func fit(_ text: String, size: Double, width: Double, bold: Bool = false) -> String {
        guard of(text, size: size, bold: bold) > width else { return text }
        var cut = text
        while !cut.isEmpty && of(cut + "…", size: size, bold: bold) > width { cut.removeLast() }
        return cut + "…"
    }
}
