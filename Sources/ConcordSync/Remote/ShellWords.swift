import Foundation

/// Splitting a command line the way a shell would (words, 'single' and "double" quotes, backslashes),
/// and quoting a word so a remote shell reads it back unchanged.
///
/// ```swift
/// try ShellWords.split("ssh -p 2222 -o 'UserKnownHostsFile /tmp/k'")   // ["ssh", "-p", "2222", "-o", "UserKnownHostsFile /tmp/k"]
/// ShellWords.quote("my dir")   // "'my dir'"
/// ```
package enum ShellWords {
    package static func split(_ text: String) throws(ConcordError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
                continue
            }
            if let q = quote {
                if c == q { quote = nil } else if c == "\\" && q == "\"" { escaped = true } else { current.append(c) }
                continue
            }
            switch c {
            case "'", "\"":
                quote = c
                inWord = true
            case "\\":
                escaped = true
                inWord = true
            case " ", "\t", "\n":
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            default:
                current.append(c)
                inWord = true
            }
        }
        guard quote == nil, !escaped else { throw ConcordError.session(.refusedByPeer, "the command '\(text)' has an unclosed quote or a trailing backslash") }
        if inWord { words.append(current) }
        return words
    }

    package static func quote(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII || "0123456789-_./=:@,+%".unicodeScalars.contains($0) }
        return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
