import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilWire

/// A desktop for messages whose attachments waited in the outbox: uploads are kept per upload
/// key (a repeated `begin` resumes: it reports the contiguous chunks it has, and a finished
/// upload keeps its id), submissions are delivered once per call key, and every call is
/// logged in order. It can be unreachable, or make the phone "die" at a chosen call: the
/// phone's store then stops taking writes, as a dead process writes nothing more.
final class FakeStagedUploadDesktop: WorkspaceUploadRPC, WorkspaceSubmitRPC {
    /// Where the phone dies.
    enum Crash: Sendable {
        /// When this call key arrives (the call fails; the phone's store stops writing).
        case at(callKey: String, phoneStore: FailingKeyValueStore)
        /// Right after this call key was answered (the phone's store stops writing first).
        case after(callKey: String, phoneStore: FailingKeyValueStore)
    }

    struct Upload {
        var uploadId: String
        var size: Int64
        var chunks: [Int: [UInt8]] = [:]
        var finished = false
    }

    private struct State {
        var reachable = true
        var crash: Crash?
        var chunkSize: Int
        var calls: [String] = []
        var uploads: [String: Upload] = [:]
        var receipts: [String: WorkspaceSubmitReceipt] = [:]
        var delivered: [WorkspaceSubmission] = []
    }

    private let state: Locked<State>

    init(chunkSize: Int = 4) {
        state = Locked(State(chunkSize: chunkSize))
    }

    var reachable: Bool {
        get { state.withLock { $0.reachable } }
        set { state.withLock { $0.reachable = newValue } }
    }

    func crash(_ crash: Crash?) { state.withLock { $0.crash = crash } }

    /// Every call key received, in order, repeats included.
    var calls: [String] { state.withLock { $0.calls } }
    /// Submissions delivered, once each.
    var delivered: [WorkspaceSubmission] { state.withLock { $0.delivered } }

    /// The bytes of a finished upload, chunks in order.
    func bytes(ofUpload uploadId: String) -> [UInt8]? {
        state.withLock { state in
            guard let upload = state.uploads.values.first(where: { $0.uploadId == uploadId && $0.finished }) else {
                return nil
            }
            return upload.chunks.keys.sorted().flatMap { upload.chunks[$0]! }
        }
    }

    /// Logs the call; throws when unreachable or when the phone dies at it.
    private func arrive(_ callKey: String) throws {
        let (reachable, dies) = state.withLock { state -> (Bool, FailingKeyValueStore?) in
            guard state.reachable else { return (false, nil) }
            state.calls.append(callKey)
            if case .at(let key, let store)? = state.crash, key == callKey {
                state.crash = nil
                return (true, store)
            }
            return (true, nil)
        }
        guard reachable else { throw FakeDesktopError(description: "The desktop could not be reached") }
        if let dies {
            dies.failWrites(true)
            throw FakeDesktopError(description: "the phone died")
        }
    }

    /// After an answer: the phone may die before it reads it.
    private func answered(_ callKey: String) {
        let dies = state.withLock { state -> FailingKeyValueStore? in
            guard case .after(let key, let store)? = state.crash, key == callKey else { return nil }
            state.crash = nil
            return store
        }
        dies?.failWrites(true)
    }

    private static func uploadKey(_ callKey: String) -> String {
        callKey.split(separator: ":").prefix(3).joined(separator: ":")
    }

    func beginUpload(callKey: String, _ request: AttachmentUploadRequest) async throws -> AttachmentUploadBegin {
        try arrive(callKey)
        defer { answered(callKey) }
        return state.withLock { state in
            let key = Self.uploadKey(callKey)
            let upload =
                state.uploads[key] ?? Upload(uploadId: "upl-\(state.uploads.count + 1)", size: request.size)
            state.uploads[key] = upload
            var contiguous = 0
            while upload.chunks[contiguous] != nil { contiguous += 1 }
            return AttachmentUploadBegin(
                uploadId: upload.uploadId, chunkSize: state.chunkSize, receivedChunks: contiguous)
        }
    }

    func uploadChunk(callKey: String, uploadId: String, index: Int, base64: String) async throws {
        try arrive(callKey)
        defer { answered(callKey) }
        guard let data = Data(base64Encoded: base64) else { throw FakeDesktopError(description: "bad base64") }
        state.withLock { state in
            state.uploads[Self.uploadKey(callKey)]?.chunks[index] = [UInt8](data)
        }
    }

    func finishUpload(callKey: String, uploadId: String, chunkCount: Int) async throws -> AttachmentUploadResult {
        try arrive(callKey)
        defer { answered(callKey) }
        return state.withLock { state in
            let key = Self.uploadKey(callKey)
            state.uploads[key]?.finished = true
            let upload = state.uploads[key]!
            let size = upload.chunks.values.reduce(0) { $0 + Int64($1.count) }
            return AttachmentUploadResult(
                uploadId: upload.uploadId, size: size, sha256: String(repeating: "0", count: 64))
        }
    }

    func cancelUpload(callKey: String, uploadId: String) async throws {
        try arrive(callKey)
    }

    func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
        try arrive(submission.callKey)
        defer { answered(submission.callKey) }
        return state.withLock { state in
            if let earlier = state.receipts[submission.callKey] { return earlier }
            let receipt = WorkspaceSubmitReceipt(
                operationId: submission.operationId, mutationId: submission.mutationId,
                outcome: .accepted(runId: "run-1"))
            state.receipts[submission.callKey] = receipt
            state.delivered.append(submission)
            return receipt
        }
    }
}
