import SybilCore

/// One source of a web-search answer: a page's title and its address. The URL is kept as
/// text (a client shows it, never opens or fetches it by itself).
public struct WebSearchSource: Sendable, Hashable {
    /// The page's title (may be empty when the page had none).
    public var title: String
    /// The page's absolute `http:` or `https:` URL.
    public var url: String

    /// The most UTF-8 bytes of a title (1 KiB).
    public static let maxTitleBytes = 1 << 10
    /// The most UTF-8 bytes of a URL (4 KiB).
    public static let maxURLBytes = 4 << 10
    /// The members, in the order they are written.
    public static let keys = ["title", "url"]

    /// Creates a source.
    public init(title: String, url: String) {
        self.title = title
        self.url = url
    }

    /// Decodes a source strictly: exactly `title` (a string within ``maxTitleBytes``) and
    /// `url` (an absolute `http:`/`https:` URL within ``maxURLBytes`` with a host, and no white
    /// space or control characters).
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WebSearchSource {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(keys)
        let title = try reader.string("title")
        try WebSearchText.check(title, at: path.appending(key: "title"), maxBytes: maxTitleBytes, blank: true)
        let url = try reader.string("url")
        let urlPath = path.appending(key: "url")
        try WebSearchText.check(url, at: urlPath, maxBytes: maxURLBytes, blank: false)
        guard isWebURL(url) else {
            throw .contract(urlPath, "must be an absolute http or https URL with a host, without spaces")
        }
        return WebSearchSource(title: title, url: url)
    }

    /// Whether `text` is `http://HOST…` or `https://HOST…` (scheme in any case) with no white
    /// space or control characters anywhere.
    public static func isWebURL(_ text: String) -> Bool {
        guard
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) })
        else { return false }
        let lowered = text.lowercased()
        for scheme in ["http://", "https://"] where lowered.hasPrefix(scheme) {
            let rest = lowered.dropFirst(scheme.count)
            guard let first = rest.first else { return false }
            return first != "/" && first != "?" && first != "#" && first != ":" && first != "@"
        }
        return false
    }

    /// The source as contract JSON.
    public var jsonValue: JSONValue {
        .object(JSONObject([JSONMember("title", .string(title)), JSONMember("url", .string(url))]))
    }
}
