import SybilCore

/// The attachment limits of the v1 contract: the hard ceilings, and what a server advertises
/// clamped to them.
public struct AgentAttachmentLimits: Sendable, Hashable {
    /// Files per message.
    public var maxFiles: Int
    /// Bytes per message, all files together.
    public var maxTotalBytes: Int64
    /// Bytes per image.
    public var maxImageBytes: Int64
    /// Bytes per other file.
    public var maxFileBytes: Int64
    /// Pixels per image (width × height).
    public var maxPixels: Int64
    /// Pixels per image axis.
    public var maxAxisPixels: Int64

    /// Creates limits.
    public init(
        maxFiles: Int, maxTotalBytes: Int64, maxImageBytes: Int64, maxFileBytes: Int64, maxPixels: Int64,
        maxAxisPixels: Int64
    ) {
        self.maxFiles = maxFiles
        self.maxTotalBytes = maxTotalBytes
        self.maxImageBytes = maxImageBytes
        self.maxFileBytes = maxFileBytes
        self.maxPixels = maxPixels
        self.maxAxisPixels = maxAxisPixels
    }

    /// The v1 hard ceilings: 8 files, 32 MiB total, 6 MiB per image, 8 MiB per file,
    /// 50 million pixels, 16,384 px per axis.
    public static let v1 = AgentAttachmentLimits(
        maxFiles: 8, maxTotalBytes: 32 << 20, maxImageBytes: 6 << 20, maxFileBytes: 8 << 20, maxPixels: 50_000_000,
        maxAxisPixels: 16_384)

    /// Each limit no higher than the v1 ceiling.
    public func clamped(to ceiling: AgentAttachmentLimits = .v1) -> AgentAttachmentLimits {
        AgentAttachmentLimits(
            maxFiles: min(maxFiles, ceiling.maxFiles), maxTotalBytes: min(maxTotalBytes, ceiling.maxTotalBytes),
            maxImageBytes: min(maxImageBytes, ceiling.maxImageBytes),
            maxFileBytes: min(maxFileBytes, ceiling.maxFileBytes), maxPixels: min(maxPixels, ceiling.maxPixels),
            maxAxisPixels: min(maxAxisPixels, ceiling.maxAxisPixels))
    }

    /// The byte limit for one file of `mimeType`.
    public func maxBytes(forMimeType mimeType: String) -> Int64 {
        mimeType.lowercased().hasPrefix("image/") ? maxImageBytes : maxFileBytes
    }

    /// Decodes `limits`: exactly the six members, each a positive integer.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentAttachmentLimits {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys([
            "maxFiles", "maxTotalBytes", "maxImageBytes", "maxFileBytes", "maxPixels", "maxAxisPixels",
        ])
        let range: ClosedRange<Int64> = 1...JSONValueReader.maxSafeInteger
        return AgentAttachmentLimits(
            maxFiles: Int(try reader.integer("maxFiles", in: 1...Int64(Int32.max))),
            maxTotalBytes: try reader.integer("maxTotalBytes", in: range),
            maxImageBytes: try reader.integer("maxImageBytes", in: range),
            maxFileBytes: try reader.integer("maxFileBytes", in: range),
            maxPixels: try reader.integer("maxPixels", in: range),
            maxAxisPixels: try reader.integer("maxAxisPixels", in: range))
    }

    /// The limits as contract JSON.
    public var jsonValue: JSONValue {
        [
            "maxFiles": .number(JSONNumber(Int64(maxFiles))), "maxTotalBytes": .number(JSONNumber(maxTotalBytes)),
            "maxImageBytes": .number(JSONNumber(maxImageBytes)), "maxFileBytes": .number(JSONNumber(maxFileBytes)),
            "maxPixels": .number(JSONNumber(maxPixels)), "maxAxisPixels": .number(JSONNumber(maxAxisPixels)),
        ]
    }
}
