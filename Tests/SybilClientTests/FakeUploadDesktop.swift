import Foundation
import SybilClient
import SybilCore
import SybilTesting
import SybilWire

/// A desktop that receives chunked uploads: each call key runs at most once, chunks are
/// decoded and appended, and it can fail a given chunk once (a dropped connection).
final class FakeUploadDesktop: WorkspaceUploadRPC {
    private struct State {
        var calls: [String] = []
        var requests: [AttachmentUploadRequest] = []
        var received: [Int: [UInt8]] = [:]
        var receivedBytes: Int64 = 0
        var failChunkOnce: Int?
        var chunkSize: Int
        var keepBytes: Bool
        /// Bytes the finish answer claims, when the test makes it lie.
        var finishedSize: Int64?
    }

    private let state: Locked<State>
    /// Notified after every call the desktop receives.
    let changed = ChangeSignal()

    /// `keepBytes`: false for large uploads, where only the count matters.
    init(chunkSize: Int = 1 << 20, keepBytes: Bool = true) {
        state = Locked(State(chunkSize: chunkSize, keepBytes: keepBytes))
    }

    var calls: [String] { state.withLock { $0.calls } }
    var requests: [AttachmentUploadRequest] { state.withLock { $0.requests } }
    var receivedBytes: Int64 { state.withLock { $0.receivedBytes } }
    /// The bytes received, chunks in index order.
    var assembled: [UInt8] { state.withLock { state in state.received.keys.sorted().flatMap { state.received[$0]! } } }

    func failChunk(_ index: Int) { state.withLock { $0.failChunkOnce = index } }

    /// Makes the finish answer claim `size` bytes, whatever arrived.
    func claimFinishedSize(_ size: Int64) { state.withLock { $0.finishedSize = size } }

    func beginUpload(callKey: String, _ request: AttachmentUploadRequest) async throws -> AttachmentUploadBegin {
        defer { changed.notify() }
        return state.withLock { state in
            state.calls.append(callKey)
            state.requests.append(request)
            return AttachmentUploadBegin(
                uploadId: "upl-1", chunkSize: state.chunkSize, receivedChunks: state.received.count)
        }
    }

    func uploadChunk(callKey: String, uploadId: String, index: Int, base64: String) async throws {
        let failed = state.withLock { state -> Bool in
            state.calls.append(callKey)
            if state.failChunkOnce == index {
                state.failChunkOnce = nil
                return true
            }
            return false
        }
        changed.notify()
        if failed { throw FakeDesktopError(description: "connection reset") }
        guard let data = Data(base64Encoded: base64) else { throw FakeDesktopError(description: "bad base64") }
        state.withLock { state in
            if state.received[index] == nil { state.receivedBytes += Int64(data.count) }
            state.received[index] = state.keepBytes ? [UInt8](data) : []
        }
    }

    func finishUpload(callKey: String, uploadId: String, chunkCount: Int) async throws -> AttachmentUploadResult {
        defer { changed.notify() }
        return state.withLock { state in
            state.calls.append(callKey)
            return AttachmentUploadResult(
                uploadId: uploadId, size: state.finishedSize ?? state.receivedBytes,
                sha256: String(repeating: "0", count: 64))
        }
    }

    func cancelUpload(callKey: String, uploadId: String) async throws {
        state.withLock { $0.calls.append(callKey) }
        changed.notify()
    }
}
