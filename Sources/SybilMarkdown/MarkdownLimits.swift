/// The bounds the parser applies to untrusted text.
public struct MarkdownLimits: Sendable, Hashable {
    /// The largest input accepted, in UTF-8 bytes; larger text throws
    /// ``MarkdownError/inputTooLarge(bytes:limit:)``. The default, 512 KiB, is far above any
    /// chat reply and keeps cmark-gfm's worst cases (long tables, deep nesting) well under a
    /// second.
    public var maximumInputBytes: Int
    /// How many block quotes and lists may nest. A container deeper than this keeps its
    /// content but not its own structure: its blocks join the container at the limit. The
    /// default is 16; the model and every renderer then recurse at most this deep, however
    /// deep the input nests (10,000 `>` included).
    public var maximumNestingDepth: Int

    /// The default limits: 512 KiB and 16 levels.
    public static let standard = MarkdownLimits(maximumInputBytes: 512 * 1024, maximumNestingDepth: 16)

    /// Creates limits; both must be positive.
    public init(maximumInputBytes: Int, maximumNestingDepth: Int) {
        precondition(maximumInputBytes > 0 && maximumNestingDepth > 0, "Markdown limits must be positive")
        self.maximumInputBytes = maximumInputBytes
        self.maximumNestingDepth = maximumNestingDepth
    }
}
