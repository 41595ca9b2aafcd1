import Foundation
import SybilCore
import SybilHTTP
import SybilWire

/// The multipart body of `POST agent/uploads` (docs/api/agent-room.md): exactly two parts, a
/// text part `uploadId`, then a part `file` with a file name and its own Content-Type, read
/// by SybilWire's incremental parser as the bytes arrive (the server streams the body into
/// it) or from a whole body; the file's bytes go on to an ``UploadSpool`` (a temporary file
/// in the store's folder) as they come. Limits stop the body at once: 128 bytes of upload id,
/// the file at the limit for its type (6 MiB for an image, 8 MiB otherwise), the body at the
/// file limit plus ``overheadBytes``. Every refusal is the shared error naming the part.
struct AgentUploadForm: HTTPRequestBodyConsumer {
    /// What an upload carries, from either form of the route.
    struct Upload: Sendable {
        var uploadId: String
        var fileName: String
        var mimeType: String
        /// The file's bytes.
        var file: UploadSpool
    }

    /// The longest upload id, in bytes.
    static let maxUploadIdBytes = UploadNames.maxUploadIdBytes
    /// Room for the boundaries, two header blocks, a preamble and an epilogue.
    static let overheadBytes = 64 << 10

    /// The body limit of a multipart upload: the largest file and the overhead.
    static func bodyLimit(_ limits: AgentAttachmentLimits) -> Int {
        Int(max(limits.maxFileBytes, limits.maxImageBytes)) + overheadBytes
    }

    private var parser: MultipartFormDataParser
    private var uploadId: [UInt8] = []
    private var file: MultipartFormDataParser.PartHead?
    private let spool: UploadSpool
    private var partsEnded = 0
    private var ended = false

    /// A form for a request whose Content-Type is `contentType`, its file going to `spool`.
    init(contentType: String, limits: AgentAttachmentLimits, spool: UploadSpool) throws(APIError) {
        self.spool = spool
        do {
            parser = try MultipartFormDataParser(
                contentType: contentType,
                limits: MultipartFormDataParser.Limits(
                    maxParts: 2, maxPartBytes: Int(limits.maxFileBytes), maxBodyBytes: Self.bodyLimit(limits))
            ) { head in
                head.index == 0 ? Self.maxUploadIdBytes : Int(limits.maxBytes(forMimeType: head.contentType ?? ""))
            }
        } catch {
            throw Self.error(error)
        }
    }

    /// Whether `contentType` announces a multipart/form-data body (any other type is the raw
    /// form's file type).
    static func isMultipart(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";", maxSplits: 1).first else { return false }
        return type.trimmingCharacters(in: .whitespaces).lowercased() == "multipart/form-data"
    }

    /// Reads a whole body, fed in 64 KiB pieces as the network would, its file going to
    /// `spool` (by default memory without a budget: the body is in memory already).
    static func read(
        _ body: [UInt8], contentType: String, limits: AgentAttachmentLimits,
        spool: UploadSpool = UploadSpool(.memory(UploadMemoryBudget(capacity: .max)), param: "file")
    ) throws(APIError) -> Upload {
        var form = try AgentUploadForm(contentType: contentType, limits: limits, spool: spool)
        var offset = 0
        repeat {
            let end = min(body.count, offset + (64 << 10))
            try form.feed(body[offset..<end])
            offset = end
        } while offset < body.count
        try form.end()
        return try form.upload()
    }

    // MARK: HTTPRequestBodyConsumer

    mutating func consume(_ bytes: [UInt8]) throws(HTTPBodyRefusal) {
        do {
            try feed(bytes)
        } catch {
            throw HTTPBodyRefusal(response: error.response)
        }
    }

    mutating func finish() throws(HTTPBodyRefusal) {
        do {
            try end()
        } catch {
            throw HTTPBodyRefusal(response: error.response)
        }
    }

    // MARK: Reading

    /// Feeds the next piece of the body.
    mutating func feed(_ piece: some Collection<UInt8>) throws(APIError) {
        let events: [MultipartFormDataParser.Event]
        do {
            events = try parser.feed(piece)
        } catch {
            throw Self.error(error)
        }
        for event in events {
            switch event {
            case .partBegan(let head) where head.index == 0:
                guard head.name == "uploadId", head.fileName == nil else {
                    throw Self.invalid("The first part must be the text part \"uploadId\", got \"\(head.name)\".")
                }
            case .partBegan(let head):
                guard head.name == "file" else {
                    throw Self.invalid("The second part must be the file part \"file\", got \"\(head.name)\".")
                }
                guard let fileName = head.fileName else {
                    throw APIError.invalid(
                        "The part \"file\" needs a filename in its Content-Disposition.", param: "file",
                        code: "invalid_multipart")
                }
                guard head.contentType != nil else {
                    throw APIError.invalid(
                        "The part \"file\" needs a Content-Type with the MIME type of \(fileName).", param: "file",
                        code: "invalid_multipart")
                }
                file = head
            case .partBytes(let piece):
                if file == nil { uploadId += piece } else { try spool.append(piece) }
            case .partEnded:
                partsEnded += 1
            }
        }
    }

    /// Ends the body: it must have held both parts and its final boundary.
    mutating func end() throws(APIError) {
        do {
            try parser.finish()
        } catch {
            throw Self.error(error)
        }
        guard partsEnded == 2 else {
            throw Self.invalid("The body must have two parts, \"uploadId\" then \"file\"; it has \(partsEnded).")
        }
        ended = true
    }

    /// The upload of a complete form.
    func upload() throws(APIError) -> Upload {
        guard ended, let file, let fileName = file.fileName, let mimeType = file.contentType else {
            throw Self.invalid("The body ended before both parts were read.")
        }
        guard let id = String(validating: uploadId, as: UTF8.self) else {
            throw APIError.invalid("The part \"uploadId\" must be UTF-8 text.", param: "uploadId")
        }
        return Upload(uploadId: id, fileName: fileName, mimeType: mimeType, file: spool)
    }

    // MARK: Errors

    private static func invalid(_ message: String) -> APIError {
        APIError.invalid(message, param: "body", code: "invalid_multipart")
    }

    /// The shared error for a parser failure.
    static func error(_ failure: MultipartFormDataParser.Failure) -> APIError {
        switch failure.kind {
        case .contentType:
            return APIError.invalid(
                "Content-Type must be multipart/form-data with a boundary: \(failure.message).", param: "Content-Type",
                code: "invalid_multipart")
        case .partTooLarge where failure.partIndex == 0:
            return APIError.invalid(
                "The part \"uploadId\" must be an id of 1 to \(maxUploadIdBytes) bytes.", param: "uploadId")
        case .partTooLarge:
            let limit = Int64(failure.limit ?? 0)
            let isImage = failure.part?.contentType?.hasPrefix("image/") ?? false
            let name = failure.part?.fileName ?? "The file"
            return APIError(
                status: 413,
                message:
                    "\(name) is larger than \(AgentRoomService.mebibytes(limit)); \(isImage ? "images" : "files") may be at most \(AgentRoomService.mebibytes(limit)).",
                code: "too_large", param: "file", details: ["limitBytes": .number(JSONNumber(limit))])
        case .bodyTooLarge:
            let limit = Int64(failure.limit ?? 0)
            return APIError(
                status: 413, message: "The upload body is larger than \(limit) bytes.", code: "too_large",
                param: "body", details: ["limitBytes": .number(JSONNumber(limit))])
        case .malformed, .incomplete, .headerTooLarge, .tooManyParts:
            return invalid("The body is not the multipart/form-data this route takes: \(failure.message).")
        }
    }
}
