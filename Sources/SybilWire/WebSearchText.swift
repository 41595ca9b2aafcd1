import SybilCore

/// The size and blankness rules the web-search contract's strings share; the messages name
/// the limit and the size found, never the text itself (it may be huge or hostile).
enum WebSearchText {
    /// Fails unless `text` has at most `maxBytes` bytes of UTF-8 and, unless `blank` allows it,
    /// holds something other than white space.
    static func check(_ text: String, at path: JSONPath, maxBytes: Int, blank: Bool) throws(JSONError) {
        let bytes = text.utf8.count
        guard bytes <= maxBytes else {
            throw .contract(path, "must be at most \(maxBytes) bytes of UTF-8, got \(bytes)")
        }
        if !blank, !text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) {
            throw .contract(path, "must not be empty or only white space")
        }
    }
}
