import Foundation
import SybilImaging
import SybilTimeline
import SybilWire

/// Uploads attachments to the desktop before the message (SPEC §4.6): `begin` (the desktop
/// returns an upload id and a chunk size, and how many chunks it already has), chunks of at
/// most min(chunk size, 1 MiB) in base64, `finish`; `cancel` when the attachment is removed.
/// Files stream from disk one chunk at a time, so memory does not grow with file size; files
/// over 1 GiB are refused before any call.
public struct AttachmentUploader: Sendable {
    /// The largest chunk sent, before base64.
    public static let maximumChunkBytes = AttachmentUploadBegin.maximumChunkSize
    /// The largest file accepted.
    public static let maximumFileBytes = AttachmentUploadRequest.maximumSize

    /// A file chosen by the user.
    public struct File: Sendable, Hashable {
        /// Where it is.
        public var path: String
        /// The name shown.
        public var fileName: String
        /// Its MIME type.
        public var mimeType: String

        /// Describes a file.
        public init(path: String, fileName: String, mimeType: String) {
            self.path = path
            self.fileName = fileName
            self.mimeType = mimeType
        }
    }

    private let rpc: any WorkspaceUploadRPC
    private let stagingDirectory: String

    /// An uploader; converted images are staged in `stagingDirectory` (app-owned).
    public init(rpc: any WorkspaceUploadRPC, stagingDirectory: String) {
        self.rpc = rpc
        self.stagingDirectory = stagingDirectory
    }

    /// The upload key of `file` in `chat` (stable across retries).
    public static func uploadKey(for file: File, size: Int64, in chat: WorkspaceChatKey) -> String {
        AttachmentUploadKey.make(
            session: chat.sessionId, project: chat.projectId, fileName: file.fileName, mimeType: file.mimeType,
            path: file.path, size: size)
    }

    /// Uploads `file` for `chat`, resuming where the desktop left off; returns the finished
    /// upload. `progress` (if any) follows the bytes acknowledged.
    public func upload(
        _ file: File, to chat: WorkspaceChatKey, progress: AttachmentUploadProgress? = nil
    ) async throws(AttachmentUploadError) -> AttachmentUploadResult {
        let originalSize = try Self.size(of: file.path)
        guard originalSize <= Self.maximumFileBytes else {
            throw .fileTooLarge(fileName: file.fileName, size: originalSize, limit: Self.maximumFileBytes)
        }
        let key = Self.uploadKey(for: file, size: originalSize, in: chat)
        let prepared = try prepare(file, size: originalSize, uploadKey: key)
        let request = AttachmentUploadRequest(
            chat: chat, fileName: prepared.fileName, mimeType: prepared.mimeType, path: file.path, size: prepared.size)
        let begin = try await call {
            try await rpc.beginUpload(callKey: AttachmentUploadKey.callKey(key, .begin), request)
        }
        guard begin.chunkSize > 0 else { throw .invalidChunkSize(begin.chunkSize) }
        let chunkSize = min(begin.chunkSize, Self.maximumChunkBytes)
        let chunkCount = Int((prepared.size + Int64(chunkSize) - 1) / Int64(chunkSize))
        guard let handle = FileHandle(forReadingAtPath: prepared.path) else {
            throw .unreadable(path: prepared.path, reason: "it cannot be opened")
        }
        defer { try? handle.close() }
        var index = min(max(begin.receivedChunks, 0), chunkCount)
        await progress?.update(sent: min(Int64(index) * Int64(chunkSize), prepared.size), of: prepared.size)
        while index < chunkCount {
            if Task.isCancelled { throw .cancelled }
            let offset = UInt64(index) * UInt64(chunkSize)
            let base64: String
            do {
                try handle.seek(toOffset: offset)
                guard let data = try handle.read(upToCount: chunkSize), !data.isEmpty else {
                    throw AttachmentUploadError.unreadable(path: prepared.path, reason: "it ended early")
                }
                base64 = data.base64EncodedString()
            } catch let error as AttachmentUploadError {
                throw error
            } catch {
                throw .unreadable(path: prepared.path, reason: String(describing: error))
            }
            let chunkIndex = index
            try await call {
                try await rpc.uploadChunk(
                    callKey: AttachmentUploadKey.callKey(key, .chunk(chunkIndex)), uploadId: begin.uploadId,
                    index: chunkIndex, base64: base64)
            }
            index += 1
            await progress?.update(sent: min(Int64(index) * Int64(chunkSize), prepared.size), of: prepared.size)
        }
        let result = try await call {
            try await rpc.finishUpload(
                callKey: AttachmentUploadKey.callKey(key, .finish), uploadId: begin.uploadId, chunkCount: chunkCount)
        }
        // The message will list this id: it must be the whole file the phone sent.
        guard result.uploadId == begin.uploadId, result.size == prepared.size else {
            throw .desktop(
                "the desktop finished \(result.uploadId) with \(result.size) bytes, not \(begin.uploadId) with \(prepared.size)"
            )
        }
        return result
    }

    /// Cancels an upload whose attachment was removed (`<upload key>:cancel`).
    public func cancel(uploadKey: String, uploadId: String) async throws(AttachmentUploadError) {
        try await call {
            try await rpc.cancelUpload(callKey: AttachmentUploadKey.callKey(uploadKey, .cancel), uploadId: uploadId)
        }
    }

    // MARK: Preparation

    private struct Prepared {
        var path: String
        var fileName: String
        var mimeType: String
        var size: Int64
    }

    /// A PNG whose decoded image fits in 64 MiB is re-encoded as JPEG into the staging
    /// directory; everything else is sent as it is.
    private func prepare(_ file: File, size: Int64, uploadKey: String) throws(AttachmentUploadError) -> Prepared {
        let original = Prepared(path: file.path, fileName: file.fileName, mimeType: file.mimeType, size: size)
        guard file.mimeType == "image/png", size <= Int64(AttachmentImageConversion.maximumDecodedBytes) else {
            return original
        }
        let png: [UInt8]
        do {
            png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file.path)))
        } catch {
            throw .unreadable(path: file.path, reason: String(describing: error))
        }
        let jpeg: [UInt8]?
        do {
            jpeg = try AttachmentImageConversion.convertedJPEG(fromPNG: png)
        } catch {
            return original  // not a readable PNG after all: send the bytes the user chose
        }
        guard let jpeg else { return original }
        let stagedName = uploadKey.split(separator: ":").last.map(String.init) ?? "attachment"
        let stagedPath = stagingDirectory + "/" + stagedName + ".jpg"
        do {
            try FileManager.default.createDirectory(atPath: stagingDirectory, withIntermediateDirectories: true)
            try Data(jpeg).write(to: URL(fileURLWithPath: stagedPath), options: .atomic)
        } catch {
            throw .unreadable(path: stagedPath, reason: String(describing: error))
        }
        let baseName = file.fileName.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(
            separator: ".")
        return Prepared(
            path: stagedPath, fileName: (baseName.isEmpty ? file.fileName : baseName) + ".jpg", mimeType: "image/jpeg",
            size: Int64(jpeg.count))
    }

    private static func size(of path: String) throws(AttachmentUploadError) -> Int64 {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard let size = attributes[.size] as? NSNumber else {
                throw AttachmentUploadError.unreadable(path: path, reason: "its size is unknown")
            }
            return size.int64Value
        } catch let error as AttachmentUploadError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: "it does not exist or cannot be read")
        }
    }

    private func call<T>(_ body: () async throws -> T) async throws(AttachmentUploadError) -> T {
        do {
            return try await body()
        } catch is CancellationError {
            throw .cancelled
        } catch let error as WorkspaceDesktopError where error.isFinalRefusal {
            throw .refused(error.description)
        } catch {
            throw .desktop(String(describing: error))
        }
    }
}
