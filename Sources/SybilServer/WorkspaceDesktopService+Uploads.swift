import Foundation
import SybilCore
import SybilHTTP
import SybilWire

/// Chunked uploads by call key: begin (resumable), chunks (idempotent per index), finish
/// (with the digest), cancel. Params and answers are SybilWire's upload types; the file name,
/// the path and the upload id a client sends follow ``UploadNames``. Each chunk goes to disk
/// as it arrives and a finish reads the file back in pieces (``WorkspaceUploadStore``): no
/// step holds more than one chunk in memory.
extension WorkspaceDesktopService {
    func upload(_ params: JSONObjectReader, callKey: String?) async throws -> JSONValue {
        guard let callKey else {
            throw APIError.invalid("Uploads need a callKey.", param: "callKey")
        }
        let parts = callKey.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, parts[0] == "files.chatAttachmentUpload", parts[2].count == 16,
            parts[2].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
        else {
            throw APIError.invalid(
                "'callKey' must be files.chatAttachmentUpload:<sessionId>:<16 hex digits>:<step>.", param: "callKey")
        }
        let uploadKey = parts[0...2].joined(separator: ":")
        let step = Array(parts[3...])
        let kind: AttachmentUploadStep.Kind
        switch step.first {
        case "begin" where step.count == 1:
            return try await beginUpload(
                AttachmentUploadRequest.decode(params: params), uploadKey: uploadKey, sessionInKey: parts[1])
        case "chunk" where step.count == 2:
            guard let index = Int(step[1]), index >= 0, index <= Int(Int32.max) else {
                throw APIError.invalid("The chunk number in 'callKey' must be a whole number.", param: "callKey")
            }
            kind = .chunk(index)
        case "finish" where step.count == 1:
            kind = .finish
        case "cancel" where step.count == 1:
            kind = .cancel
        default:
            throw APIError.invalid("'callKey' must end in :begin, :chunk:<n>, :finish or :cancel.", param: "callKey")
        }
        let stepParams = try AttachmentUploadStep.decode(params: params, step: kind)
        guard UploadNames.isUploadId(stepParams.uploadId) else {
            throw APIError.invalid("params.uploadId \(UploadNames.uploadIdRule).", param: "params.uploadId")
        }
        switch stepParams {
        case .chunk(let uploadId, let index, let base64):
            return try await uploadChunk(uploadId, index: Int64(index), base64: base64, uploadKey: uploadKey)
        case .finish(let uploadId, let chunkCount):
            return try await finishUpload(uploadId, chunkCount: Int64(chunkCount), uploadKey: uploadKey)
        case .cancel(let uploadId):
            let upload = try await existingUpload(uploadId, uploadKey: uploadKey)
            if upload.state != .finished { try await uploads.cancelUpload(upload.uploadId) }
            return AttachmentUploadStep.cancelAnswer(uploadId: upload.uploadId, cancelled: upload.state != .finished)
        }
    }

    private func beginUpload(_ request: AttachmentUploadRequest, uploadKey: String, sessionInKey: String) async throws
        -> JSONValue
    {
        guard UploadNames.isFileName(request.fileName) else {
            throw APIError.invalid("params.fileName \(UploadNames.fileNameRule).", param: "params.fileName")
        }
        guard UploadNames.isPath(request.path) else {
            throw APIError.invalid(
                "params.path must be at most 4096 bytes without control characters.", param: "params.path")
        }
        let chat = try await self.chat(request.chat)
        guard chat.sessionId == sessionInKey else {
            throw APIError.invalid("The session in 'callKey' is not params.sessionId.", param: "callKey")
        }
        if let existing = try await uploads.upload(key: uploadKey) {
            guard existing.size == request.size, existing.fileName == request.fileName, existing.chat == chat else {
                throw APIError(
                    status: 409, message: "Upload key \(uploadKey) belongs to a different file.",
                    code: "call_key_conflict", param: "callKey")
            }
            return try await beginAnswer(existing)
        }
        // The boot keeps ids unique across restarts (a cancelled upload keeps its row).
        let uploadId = "upl-\(store.boot)-\(nextNumber(\.upload))-\(uploadKey.suffix(16))"
        let upload = WorkspaceUploadStore.Upload(
            uploadId: uploadId, uploadKey: uploadKey, chat: chat, fileName: request.fileName,
            mimeType: request.mimeType, path: request.path, size: request.size, chunkSize: Self.chunkSize,
            state: .open, sha256: nil)
        try await uploads.createUpload(upload)
        return try await beginAnswer(upload)
    }

    private func beginAnswer(_ upload: WorkspaceUploadStore.Upload) async throws -> JSONValue {
        let received = try await uploads.receivedChunks(upload.uploadId).indices
        var contiguous = 0
        for index in received where index == contiguous { contiguous += 1 }
        return AttachmentUploadBegin(
            uploadId: upload.uploadId, chunkSize: Int(upload.chunkSize), receivedChunks: contiguous
        ).jsonValue
    }

    private func uploadChunk(_ uploadId: String, index: Int64, base64: String, uploadKey: String) async throws
        -> JSONValue
    {
        let upload = try await existingUpload(uploadId, uploadKey: uploadKey)
        guard upload.state == .open else {
            throw APIError(
                status: 409, message: "Upload \(upload.uploadId) is \(upload.state.rawValue).", code: "upload_closed")
        }
        guard index < upload.chunkCount else {
            throw APIError.invalid(
                "params.index must be below \(upload.chunkCount) for a \(upload.size)-byte file.", param: "params.index"
            )
        }
        guard let bytes = Data(base64Encoded: base64).map(Array.init) else {
            throw APIError.invalid("params.data must be base64.", param: "params.data")
        }
        let expected = index == upload.chunkCount - 1 ? upload.size - index * upload.chunkSize : upload.chunkSize
        guard Int64(bytes.count) == expected else {
            throw APIError.invalid(
                "Chunk \(index) must hold \(expected) bytes, got \(bytes.count).", param: "params.data")
        }
        if try await uploads.storeChunk(upload.uploadId, index: index, bytes: bytes) == .conflict {
            throw APIError(
                status: 409, message: "Chunk \(index) of \(upload.uploadId) was already received with other bytes.",
                code: "upload_conflict", param: "params.data")
        }
        let received = try await uploads.receivedChunks(upload.uploadId)
        return AttachmentUploadStep.chunkAnswer(
            uploadId: upload.uploadId, index: Int(index), receivedBytes: received.bytes)
    }

    private func finishUpload(_ uploadId: String, chunkCount: Int64, uploadKey: String) async throws -> JSONValue {
        let upload = try await existingUpload(uploadId, uploadKey: uploadKey)
        guard chunkCount == upload.chunkCount else {
            throw APIError.invalid(
                "params.chunkCount must be \(upload.chunkCount) for a \(upload.size)-byte file.",
                param: "params.chunkCount")
        }
        var sha256 = upload.sha256
        if upload.state != .finished {
            guard upload.state == .open else {
                throw APIError(
                    status: 409, message: "Upload \(upload.uploadId) is \(upload.state.rawValue).",
                    code: "upload_closed")
            }
            let received = try await uploads.receivedChunks(upload.uploadId)
            guard Int64(received.indices.count) == chunkCount, received.bytes == upload.size else {
                throw APIError(
                    status: 409,
                    message: "Upload \(upload.uploadId) has \(received.indices.count) of \(chunkCount) chunks.",
                    code: "upload_incomplete")
            }
            sha256 = try await uploads.finishUpload(upload.uploadId)
        }
        return AttachmentUploadResult(uploadId: upload.uploadId, size: upload.size, sha256: sha256 ?? "").jsonValue
    }

    private func existingUpload(_ uploadId: String, uploadKey: String) async throws -> WorkspaceUploadStore.Upload {
        guard let upload = try await uploads.upload(id: uploadId), upload.uploadKey.hasPrefix(uploadKey) else {
            throw APIError.notFound("No upload \(uploadId) under \(uploadKey).")
        }
        return upload
    }
}

extension AttachmentUploadStep {
    /// The upload a step names.
    fileprivate var uploadId: String {
        switch self {
        case .chunk(let uploadId, _, _), .finish(let uploadId, _), .cancel(let uploadId): uploadId
        }
    }
}
