import Foundation
import SybilCore

/// Chunked uploads by call key: begin (resumable), chunks (idempotent per index), finish
/// (with the digest), cancel.
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
        switch step.first {
        case "begin" where step.count == 1:
            return try await beginUpload(params, uploadKey: uploadKey, sessionInKey: parts[1])
        case "chunk" where step.count == 2:
            guard let index = Int64(step[1]), index >= 0 else {
                throw APIError.invalid("The chunk number in 'callKey' must be a whole number.", param: "callKey")
            }
            return try await uploadChunk(params, uploadKey: uploadKey, index: index)
        case "finish" where step.count == 1:
            return try await finishUpload(params, uploadKey: uploadKey)
        case "cancel" where step.count == 1:
            try params.rejectUnknownKeys(["uploadId"])
            let upload = try await existingUpload(params, uploadKey: uploadKey)
            if upload.state != "finished" { try await store.setUploadState(upload.uploadId, state: "cancelled") }
            return ["uploadId": .string(upload.uploadId), "cancelled": .bool(upload.state != "finished")]
        default:
            throw APIError.invalid("'callKey' must end in :begin, :chunk:<n>, :finish or :cancel.", param: "callKey")
        }
    }

    private func beginUpload(_ params: JSONObjectReader, uploadKey: String, sessionInKey: String) async throws
        -> JSONValue
    {
        try params.rejectUnknownKeys(["desktopId", "projectId", "sessionId", "fileName", "mimeType", "path", "size"])
        let chat = try await chat(params)
        guard chat.sessionId == sessionInKey else {
            throw APIError.invalid("The session in 'callKey' is not params.sessionId.", param: "callKey")
        }
        let fileName = try params.nonBlankString("fileName")
        let mimeType = try params.nonBlankString("mimeType")
        let path = try params.string("path")
        let size = try params.integer("size", in: 1...Self.maximumUploadBytes)
        if let existing = try await store.upload(key: uploadKey) {
            guard existing.size == size, existing.fileName == fileName, existing.chat == chat else {
                throw APIError(
                    status: 409, message: "Upload key \(uploadKey) belongs to a different file.",
                    code: "call_key_conflict", param: "callKey")
            }
            return try await beginAnswer(existing)
        }
        let uploadId = "upl-\(nextNumber(\.upload))-\(uploadKey.suffix(16))"
        let upload = WorkspaceStore.Upload(
            uploadId: uploadId, uploadKey: uploadKey, chat: chat, fileName: fileName, mimeType: mimeType, path: path,
            size: size, chunkSize: Self.chunkSize, state: "open", sha256: nil)
        try await store.createUpload(upload)
        return try await beginAnswer(upload)
    }

    private func beginAnswer(_ upload: WorkspaceStore.Upload) async throws -> JSONValue {
        let received = try await store.receivedChunks(upload.uploadId).indices
        var contiguous: Int64 = 0
        for index in received where index == contiguous { contiguous += 1 }
        return [
            "uploadId": .string(upload.uploadId), "chunkSize": .number(JSONNumber(upload.chunkSize)),
            "receivedChunks": .number(JSONNumber(contiguous)),
        ]
    }

    private func uploadChunk(_ params: JSONObjectReader, uploadKey: String, index: Int64) async throws -> JSONValue {
        try params.rejectUnknownKeys(["uploadId", "index", "data"])
        let upload = try await existingUpload(params, uploadKey: uploadKey)
        let paramIndex = try params.integer("index", in: 0...Int64.max)
        guard paramIndex == index else {
            throw APIError.invalid(
                "params.index must equal the chunk number in 'callKey' (\(index)).", param: "params.index")
        }
        guard upload.state == "open" else {
            throw APIError(status: 409, message: "Upload \(upload.uploadId) is \(upload.state).", code: "upload_closed")
        }
        guard index < upload.chunkCount else {
            throw APIError.invalid(
                "params.index must be below \(upload.chunkCount) for a \(upload.size)-byte file.", param: "params.index"
            )
        }
        guard let bytes = Data(base64Encoded: try params.string("data")).map(Array.init) else {
            throw APIError.invalid("params.data must be base64.", param: "params.data")
        }
        let expected = index == upload.chunkCount - 1 ? upload.size - index * upload.chunkSize : upload.chunkSize
        guard Int64(bytes.count) == expected else {
            throw APIError.invalid(
                "Chunk \(index) must hold \(expected) bytes, got \(bytes.count).", param: "params.data")
        }
        if let stored = try await store.chunk(upload.uploadId, index: index) {
            guard stored == bytes else {
                throw APIError(
                    status: 409, message: "Chunk \(index) of \(upload.uploadId) was already received with other bytes.",
                    code: "upload_conflict", param: "params.data")
            }
        } else {
            try await store.storeChunk(upload.uploadId, index: index, bytes: bytes)
        }
        let received = try await store.receivedChunks(upload.uploadId)
        return [
            "uploadId": .string(upload.uploadId), "index": .number(JSONNumber(index)),
            "receivedBytes": .number(JSONNumber(received.bytes)),
        ]
    }

    private func finishUpload(_ params: JSONObjectReader, uploadKey: String) async throws -> JSONValue {
        try params.rejectUnknownKeys(["uploadId", "chunkCount"])
        let upload = try await existingUpload(params, uploadKey: uploadKey)
        let chunkCount = try params.integer("chunkCount", in: 0...Int64.max)
        guard chunkCount == upload.chunkCount else {
            throw APIError.invalid(
                "params.chunkCount must be \(upload.chunkCount) for a \(upload.size)-byte file.",
                param: "params.chunkCount")
        }
        var sha256 = upload.sha256
        if upload.state != "finished" {
            guard upload.state == "open" else {
                throw APIError(
                    status: 409, message: "Upload \(upload.uploadId) is \(upload.state).", code: "upload_closed")
            }
            let received = try await store.receivedChunks(upload.uploadId)
            guard Int64(received.indices.count) == chunkCount, received.bytes == upload.size else {
                throw APIError(
                    status: 409,
                    message: "Upload \(upload.uploadId) has \(received.indices.count) of \(chunkCount) chunks.",
                    code: "upload_incomplete")
            }
            let digest = SHA256Digest.hex(try await store.assembledBytes(upload.uploadId))
            try await store.setUploadState(upload.uploadId, state: "finished", sha256: digest)
            sha256 = digest
        }
        return [
            "uploadId": .string(upload.uploadId), "size": .number(JSONNumber(upload.size)),
            "sha256": .string(sha256 ?? ""),
        ]
    }

    private func existingUpload(_ params: JSONObjectReader, uploadKey: String) async throws -> WorkspaceStore.Upload {
        let uploadId = try params.nonEmptyString("uploadId")
        guard let upload = try await store.upload(id: uploadId), upload.uploadKey.hasPrefix(uploadKey) else {
            throw APIError.notFound("No upload \(uploadId) under \(uploadKey).")
        }
        return upload
    }

}
