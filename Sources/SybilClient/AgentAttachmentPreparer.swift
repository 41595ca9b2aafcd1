import SybilImaging
import SybilWire

/// Turns a picked file or photo into the bytes to upload (SPEC §6.1): a file keeps its
/// original bytes whatever it is; a photo that is HEIC/HEIF becomes a bounded JPEG named like
/// the original with `.jpg`; PNG, JPEG, GIF and WebP are validated as raster images from
/// their headers. Every limit is checked against the capability's limits (clamped to v1).
///
/// The decisions (``plan(kind:fileName:declaredMimeType:head:)``, ``check(_:fileName:limits:)``,
/// the name rules) are pure; ``prepare(_:limits:otherBytes:)`` reads and converts.
public enum AgentAttachmentPreparer {
    /// The most bytes read of a photo before conversion (a HEIC source may exceed the image
    /// limit; its JPEG may not).
    public static let maxPhotoSourceBytes = 64 << 20

    /// What preparation does with the bytes.
    public enum Plan: Sendable, Hashable {
        /// Upload the original bytes with this MIME type.
        case original(mimeType: String)
        /// Validate as a raster image of this format, then upload the original bytes.
        case raster(RasterImageHeader.Format)
        /// Convert the HEIC/HEIF photo to JPEG.
        case convertHEIF
        /// Refuse: the bytes are not the image they should be (`expected` names it).
        case notAnImage(expected: String)
    }

    /// What is uploaded.
    public struct Prepared: Sendable, Hashable {
        /// The name on the card.
        public var fileName: String
        /// The MIME type sent with the file.
        public var mimeType: String
        /// The bytes.
        public var bytes: [UInt8]

        /// Creates a prepared attachment.
        public init(fileName: String, mimeType: String, bytes: [UInt8]) {
            self.fileName = fileName
            self.mimeType = mimeType
            self.bytes = bytes
        }

        /// The size in bytes.
        public var size: Int64 { Int64(bytes.count) }
    }

    /// Decides from the kind of pick, the names and the first bytes (at least 32).
    public static func plan(
        kind: AgentAttachmentSource.Kind, fileName: String, declaredMimeType: String?, head: [UInt8]
    ) -> Plan {
        let sniffed = RasterImageHeader.format(of: head)
        switch (kind, sniffed) {
        case (.photo, .heif?):
            return .convertHEIF
        case (.file, .heif?):
            if let declared = normalizedMimeType(declaredMimeType), declared.hasPrefix("image/hei") {
                return .original(mimeType: declared)
            }
            return .original(mimeType: "image/heic")
        case (_, let format?):
            return .raster(format)
        case (.photo, nil):
            return .notAnImage(expected: "PNG, JPEG, GIF, WebP or HEIC")
        case (.file, nil):
            let mimeType = normalizedMimeType(declaredMimeType) ?? mimeType(forFileName: fileName)
            if let format = rasterFormats.first(where: { $0.mimeType == mimeType }) {
                return .notAnImage(expected: format.rawValue.uppercased())
            }
            return .original(mimeType: mimeType)
        }
    }

    /// Checks a raster header against the pixel limits: each side, then the pixel count.
    public static func check(
        _ header: RasterImageHeader, fileName: String, limits: AgentAttachmentLimits
    ) throws(AgentAttachmentRejection) {
        guard Int64(header.width) <= limits.maxAxisPixels, Int64(header.height) <= limits.maxAxisPixels else {
            throw .tooManyPixelsPerAxis(
                fileName: fileName, width: header.width, height: header.height, limit: limits.maxAxisPixels)
        }
        guard header.pixels <= limits.maxPixels else {
            throw .tooManyPixels(fileName: fileName, pixels: header.pixels, limit: limits.maxPixels)
        }
    }

    /// Checks one file's size against its kind's limit and the draft's total.
    public static func check(
        size: Int64, mimeType: String, fileName: String, otherBytes: Int64, limits: AgentAttachmentLimits
    ) throws(AgentAttachmentRejection) {
        let limit = limits.maxBytes(forMimeType: mimeType)
        guard size <= limit else {
            throw .tooLarge(
                fileName: fileName, size: size, limit: limit, isImage: mimeType.lowercased().hasPrefix("image/"))
        }
        let (total, overflow) = otherBytes.addingReportingOverflow(size)
        guard !overflow, total <= limits.maxTotalBytes else {
            throw .totalTooLarge(fileName: fileName, total: overflow ? .max : total, limit: limits.maxTotalBytes)
        }
    }

    /// Reads, validates and (for HEIC/HEIF photos) converts `source`. `otherBytes` is what the
    /// draft's other items already take of the total. CPU-heavy for photos: run it off the
    /// main actor.
    public static func prepare(
        _ source: AgentAttachmentSource, limits: AgentAttachmentLimits, otherBytes: Int64
    ) async throws(AgentAttachmentRejection) -> Prepared {
        let limits = limits.clamped()
        let name = displayName(source.fileName)
        let budget =
            source.kind == .photo ? maxPhotoSourceBytes : Int(max(limits.maxFileBytes, limits.maxImageBytes))
        if source.kind == .file, let size = source.byteCount, size > budget {
            let mimeType = normalizedMimeType(source.mimeType) ?? mimeType(forFileName: name)
            try check(size: size, mimeType: mimeType, fileName: name, otherBytes: otherBytes, limits: limits)
        }
        let bytes: [UInt8]
        do {
            bytes = try await source.read(budget)
        } catch {
            throw .unreadable(fileName: name, reason: String(describing: error))
        }
        if bytes.count > budget {
            let size = max(source.byteCount ?? 0, Int64(bytes.count))
            let limit = source.kind == .photo ? Int64(budget) : limits.maxFileBytes
            throw .tooLarge(fileName: name, size: size, limit: limit, isImage: source.kind == .photo)
        }
        switch plan(kind: source.kind, fileName: name, declaredMimeType: source.mimeType, head: Array(bytes.prefix(32)))
        {
        case .original(let mimeType):
            try check(
                size: Int64(bytes.count), mimeType: mimeType, fileName: name, otherBytes: otherBytes, limits: limits)
            return Prepared(fileName: name, mimeType: mimeType, bytes: bytes)
        case .raster(let format):
            guard let header = RasterImageHeader.read(bytes), header.format == format else {
                throw .notAnImage(fileName: name, expected: format.rawValue.uppercased())
            }
            try check(header, fileName: name, limits: limits)
            try check(
                size: Int64(bytes.count), mimeType: format.mimeType, fileName: name, otherBytes: otherBytes,
                limits: limits)
            return Prepared(fileName: name, mimeType: format.mimeType, bytes: bytes)
        case .convertHEIF:
            let jpegName = jpegName(for: name)
            let output: HEIFPhotoConversion.Output
            do {
                output = try HEIFPhotoConversion.jpeg(
                    fromHEIF: bytes, maxBytes: Int(limits.maxImageBytes), maxPixels: limits.maxPixels,
                    maxAxisPixels: Int(limits.maxAxisPixels))
            } catch {
                throw .conversionFailed(fileName: name, reason: error.message)
            }
            try check(
                size: Int64(output.bytes.count), mimeType: "image/jpeg", fileName: jpegName, otherBytes: otherBytes,
                limits: limits)
            return Prepared(fileName: jpegName, mimeType: "image/jpeg", bytes: output.bytes)
        case .notAnImage(let expected):
            throw .notAnImage(fileName: name, expected: expected)
        }
    }

    // MARK: - Names

    /// The name shown and sent: the last path component the picker gave, without control
    /// characters, at most 255 UTF-8 bytes (the extension kept); leading dots are kept.
    /// `attachment` when nothing is left.
    public static func displayName(_ raw: String) -> String {
        let lastComponent = raw.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? raw
        var name = String(
            String.UnicodeScalarView(
                lastComponent.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        name = name.trimmingTrailingWhitespace()
        if name.isEmpty || name == "." || name == ".." { return "attachment" }
        guard name.utf8.count > 255 else { return name }
        let (stem, pathExtension) = split(name)
        let suffix = pathExtension.map { "." + $0 } ?? ""
        var shortened = ""
        for character in stem {
            if shortened.utf8.count + String(character).utf8.count + suffix.utf8.count > 255 { break }
            shortened.append(character)
        }
        return shortened + suffix
    }

    /// The converted photo's name: the original's without its extension, plus `.jpg`
    /// (`IMG_0001.HEIC` → `IMG_0001.jpg`; a leading-dot name keeps its dot: `.heic` → `.heic.jpg`).
    public static func jpegName(for name: String) -> String {
        split(name).stem + ".jpg"
    }

    /// A MIME type from a name's extension; `application/octet-stream` when unknown.
    public static func mimeType(forFileName name: String) -> String {
        guard let pathExtension = split(name).pathExtension?.lowercased() else { return "application/octet-stream" }
        return mimeTypesByExtension[pathExtension] ?? "application/octet-stream"
    }

    /// A name's stem and extension. A leading dot starts a name, not an extension.
    static func split(_ name: String) -> (stem: String, pathExtension: String?) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex
        else { return (name, nil) }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    private static func normalizedMimeType(_ mimeType: String?) -> String? {
        guard let mimeType = mimeType?.lowercased().split(separator: ";").first?.trimmingWhitespace(),
            mimeType.split(separator: "/", omittingEmptySubsequences: false).count == 2,
            !mimeType.hasPrefix("/"), !mimeType.hasSuffix("/")
        else { return nil }
        return mimeType
    }

    private static let rasterFormats: [RasterImageHeader.Format] = [.png, .jpeg, .gif, .webp]

    private static let mimeTypesByExtension: [String: String] = [
        "txt": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "json": "application/json", "xml": "application/xml", "yaml": "application/yaml", "yml": "application/yaml",
        "html": "text/html", "htm": "text/html", "svg": "image/svg+xml", "pdf": "application/pdf",
        "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "swift": "text/x-swift", "py": "text/x-python",
        "js": "text/javascript", "sh": "application/x-sh",
    ]
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }).trimmingTrailingWhitespace()
    }

    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = String(self)
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
