import CCMarkGFM
import SybilCore

/// Owns one `cmark_parser` (freed in `deinit`) with the GFM table, strikethrough and
/// autolink extensions attached.
///
/// cmark-gfm 0.29 adds each attached extension's special characters to global tables when
/// inline parsing starts and removes them when it ends, so two parses on two threads change
/// each other's results. Every parse therefore runs under ``lock`` (with the walk that turns
/// the tree into values, so no C handle crosses the lock).
final class CMarkParser {
    /// Serializes cmark-gfm parsing in this process; `true` once the core extensions are
    /// registered (registration itself is not thread-safe either).
    private static let lock = Locked(false)
    /// The extensions every parse attaches.
    private static let extensionNames = ["table", "strikethrough", "autolink"]

    private let handle: OpaquePointer

    /// `nil` when cmark-gfm cannot allocate a parser or an extension is missing.
    private init?() {
        guard let handle = cmark_parser_new(CMARK_OPT_DEFAULT) else { return nil }
        self.handle = handle
        for name in Self.extensionNames {
            guard let syntax = cmark_find_syntax_extension(name) else { return nil }
            _ = cmark_parser_attach_syntax_extension(handle, syntax)
        }
    }

    deinit {
        cmark_parser_free(handle)
    }

    /// Parses UTF-8 `bytes` and hands the tree's events to `builder`; returns its blocks.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumNestingDepth: Int) -> Result<
        [MarkdownBlock], MarkdownError
    > {
        lock.withLock { registered in
            if !registered {
                cmark_gfm_core_extensions_ensure_registered()
                registered = true
            }
            guard let parser = CMarkParser() else { return .failure(.parserUnavailable) }
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress { cmark_parser_feed(parser.handle, base, chars.count) }
            }
            guard let root = cmark_parser_finish(parser.handle) else { return .failure(.parserUnavailable) }
            let tree = CMarkNodeTree(root: root)
            var builder = MarkdownTreeBuilder(maximumNestingDepth: maximumNestingDepth)
            tree.walk { builder.handle($0) }
            return .success(builder.finish())
        }
    }
}
