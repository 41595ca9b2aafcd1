import Foundation
import SybilHTTP

/// Where under a base URL a server's OpenAI routes (`chat/completions`, `models`) are: `/v1`,
/// the server's root as `sybil` has always taken a base URL (a trailing `/v1` is dropped from
/// it), or `/`, the base URL being the whole prefix as the OpenAI SDKs take `base_url`
/// (Gemini's `https://generativelanguage.googleapis.com/v1beta/openai/`), or another path.
/// A profile keeps it as `api_prefix`; one without it is `/v1`.
public struct APIPrefix: Sendable, Hashable, CustomStringConvertible {
    /// The segments joined by `/`, without a leading or trailing one: `v1`, or empty for `/`.
    public let path: String

    /// `/v1`: the base URL is the server's root.
    public static let v1 = APIPrefix(checked: "v1")
    /// `/`: the base URL is the whole prefix.
    public static let root = APIPrefix(checked: "")

    private init(checked path: String) {
        self.path = path
    }

    /// `text` when it is a path such as `/`, `/v1` or `/openai/v1`: a leading `/`, then
    /// segments of letters, digits, `.`, `_`, `~` or `-` (not `.` or `..`), at most 256 bytes; a
    /// trailing `/` is dropped.
    public init?(parsing text: String) {
        guard text.hasPrefix("/"), text.utf8.count <= 256 else { return nil }
        var path = Substring(text.dropFirst())
        if path.hasSuffix("/") { path = path.dropLast() }
        if path.isEmpty {
            guard text == "/" else { return nil }  // `//`
            self.path = ""
            return
        }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, segment != ".", segment != "..",
                segment.utf8.allSatisfy({ byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || byte == 0x2E || byte == 0x5F || byte == 0x7E || byte == 0x2D
                })
            else { return nil }
        }
        self.path = String(path)
    }

    /// `/` and the path: `/v1`, `/`.
    public var description: String { "/" + path }

    /// `route` (`chat/completions`) under this prefix, as a path under the base URL.
    public func route(_ route: String) -> String {
        path.isEmpty ? route : path + "/" + route
    }

    /// The URL of `route` under `base`: `…/v1/models`, or `…/models` for `/`.
    public func url(base: URL, route: String) -> URL {
        APIEndpoint.url(base: base, path: self.route(route))
    }

    /// What an `api_prefix` or `--api-prefix` must be, for errors.
    public static let rule = "a path such as / or /v1 (letters, digits, '.', '_', '~', '-' between slashes)"
}
