/// The title a new conversation gets from its first message: one line (runs of spaces, tabs and
/// line breaks become one space), at most ``maximumLength`` characters, cut at a word boundary
/// when one is near and then ended with "…".
public enum ChatTitle {
    /// The longest title, in characters (grapheme clusters), "…" included.
    public static let maximumLength = 60
    /// The title of a conversation whose first message has no visible text.
    public static let untitled = "New chat"

    /// The title for a conversation that starts with `text`.
    public static func make(from text: String) -> String {
        let line = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        guard !line.isEmpty else { return untitled }
        guard line.count > maximumLength else { return line }
        let kept = maximumLength - 1  // room for "…"
        var cut = line.prefix(kept)
        let nextIsSpace = line[cut.endIndex] == " "
        if !nextIsSpace, let space = cut.lastIndex(of: " "), cut.distance(from: cut.startIndex, to: space) >= kept / 2 {
            cut = cut[..<space]
        }
        while cut.last == " " { cut = cut.dropLast() }
        return cut + "…"
    }
}
