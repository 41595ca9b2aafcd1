import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// The live desktop over HTTP (docs/api/workspaces.md): every RPC is `POST <base>/v1/workspaces/rpc`
/// with a Wire request and a strictly decoded Wire answer. Implements the load, submit and
/// upload seams the view models use, plus browsing and stopping runs. A `401` renews the token
/// once through the token chain and repeats the call (the call key makes that safe).
public struct WorkspaceDesktopClient: WorkspaceChatRPC, WorkspaceSubmitRPC, WorkspaceUploadRPC {
    /// The largest answer read (a full window of 200 rows fits many times over).
    public static let maximumAnswerBytes = 16 << 20

    private let baseURL: URL
    private let http: any HTTPClient
    private let tokens: TokenProvider
    private let timeout: Duration

    /// A client for the server at `baseURL` (its `/v1/…` routes are joined to the base path).
    public init(baseURL: URL, http: any HTTPClient, tokens: TokenProvider, timeout: Duration = .seconds(30)) {
        self.baseURL = baseURL
        self.http = http
        self.tokens = tokens
        self.timeout = timeout
    }

    // MARK: Browsing

    /// `desktops.list`.
    public func desktops() async throws(WorkspaceDesktopError) -> [WorkspaceDesktop] {
        try await call(WorkspaceRPCRequest(method: "desktops.list"), WorkspaceDesktop.decodeList)
    }

    /// `projects.list` of a desktop.
    public func projects(desktopId: String) async throws(WorkspaceDesktopError) -> [WorkspaceProject] {
        try await call(
            WorkspaceRPCRequest(method: "projects.list", params: ["desktopId": .string(desktopId)]),
            WorkspaceProject.decodeList)
    }

    /// `sessions.list` of a project, newest first.
    public func sessions(desktopId: String, projectId: String) async throws(WorkspaceDesktopError)
        -> [WorkspaceSessionSummary]
    {
        try await call(
            WorkspaceRPCRequest(
                method: "sessions.list", params: ["desktopId": .string(desktopId), "projectId": .string(projectId)]),
            WorkspaceSessionSummary.decodeList)
    }

    // MARK: Loading (WorkspaceChatRPC)

    public func codexChatLoad(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatLoadEnvelope {
        try await call(
            WorkspaceRPCRequest(method: "run.codexChatLoad", params: JSONObject(chat.paramsMembers)),
            WorkspaceChatLoadEnvelope.decode)
    }

    public func codexChatLoadPageBefore(_ chat: WorkspaceChatKey, cursor: String) async throws -> WorkspaceChatPage {
        try await call(
            WorkspaceRPCRequest(
                method: "run.codexChatLoadPageBefore",
                params: JSONObject(chat.paramsMembers + [JSONMember("cursor", .string(cursor))])),
            { value, path throws(JSONError) in try WorkspaceChatPage.decode(value, at: path, kind: .olderPage) })
    }

    public func codexChatLoadThread(_ chat: WorkspaceChatKey, threadId: String) async throws -> WorkspaceChatPage {
        try await threadPage(chat, threadId: threadId, cursor: nil)
    }

    public func codexChatLoadThreadPageBefore(
        _ chat: WorkspaceChatKey, threadId: String, cursor: String
    ) async throws -> WorkspaceChatPage {
        try await threadPage(chat, threadId: threadId, cursor: cursor)
    }

    private func threadPage(_ chat: WorkspaceChatKey, threadId: String, cursor: String?)
        async throws(WorkspaceDesktopError) -> WorkspaceChatPage
    {
        var members = chat.paramsMembers + [JSONMember("threadId", .string(threadId))]
        if let cursor { members.append(JSONMember("cursor", .string(cursor))) }
        let page = try await call(
            WorkspaceRPCRequest(
                method: cursor == nil ? "run.codexChatLoadThread" : "run.codexChatLoadThreadPageBefore",
                params: JSONObject(members)),
            { value, path throws(JSONError) in try WorkspaceChatPage.decode(value, at: path, kind: .threadPage) })
        guard page.threadId == threadId else {
            throw .malformedAnswer("result.threadId: answers thread \(page.threadId ?? "?"), not \(threadId)")
        }
        return page
    }

    // MARK: Sending (WorkspaceSubmitRPC)

    public func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
        try await call(submission.request, WorkspaceSubmitReceipt.decode)
    }

    /// `run.codexChatStop`: stops a running run or cancels a queued one.
    public func stop(_ stop: WorkspaceRunStop) async throws(WorkspaceDesktopError) -> WorkspaceRunStop.Result {
        try await call(stop.request, WorkspaceRunStop.Result.decode)
    }

    // MARK: Uploads (WorkspaceUploadRPC)

    public func beginUpload(callKey: String, _ request: AttachmentUploadRequest) async throws
        -> AttachmentUploadBegin
    {
        try await call(
            WorkspaceRPCRequest(method: Self.uploadMethod, callKey: callKey, params: request.params),
            AttachmentUploadBegin.decode)
    }

    public func uploadChunk(callKey: String, uploadId: String, index: Int, base64: String) async throws {
        let step = AttachmentUploadStep.chunk(uploadId: uploadId, index: index, base64: base64)
        try await call(WorkspaceRPCRequest(method: Self.uploadMethod, callKey: callKey, params: step.params)) {
            value, path throws(JSONError) in
            try AttachmentUploadStep.decodeChunkAnswer(value, at: path, uploadId: uploadId, index: index)
        }
    }

    public func finishUpload(callKey: String, uploadId: String, chunkCount: Int) async throws
        -> AttachmentUploadResult
    {
        let step = AttachmentUploadStep.finish(uploadId: uploadId, chunkCount: chunkCount)
        return try await call(
            WorkspaceRPCRequest(method: Self.uploadMethod, callKey: callKey, params: step.params),
            AttachmentUploadResult.decode)
    }

    public func cancelUpload(callKey: String, uploadId: String) async throws {
        let step = AttachmentUploadStep.cancel(uploadId: uploadId)
        _ = try await call(
            WorkspaceRPCRequest(method: Self.uploadMethod, callKey: callKey, params: step.params),
            AttachmentUploadStep.decodeCancelAnswer)
    }

    private static let uploadMethod = "files.chatAttachmentUpload"

    // MARK: Transport

    /// Sends `request`, renews the token once on `401`, and decodes the `result` strictly.
    public func call<T>(
        _ request: WorkspaceRPCRequest, _ decode: (JSONValue, JSONPath) throws(JSONError) -> T
    ) async throws(WorkspaceDesktopError) -> T {
        let body = try await send(request)
        do {
            return try WorkspaceRPCResult.decode(json: body, decode)
        } catch {
            throw .malformedAnswer(String(describing: error))
        }
    }

    private func send(_ rpc: WorkspaceRPCRequest) async throws(WorkspaceDesktopError) -> [UInt8] {
        var token = try await currentToken()
        var renewed = false
        while true {
            var headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", "application/json")])
            if let token { headers.set("Authorization", "Bearer \(token)") }
            let request = HTTPRequest(
                method: "POST", url: APIEndpoint.url(base: baseURL, path: "v1/workspaces/rpc"), headers: headers,
                body: rpc.body, timeout: timeout)
            let status: Int
            let retryAfter: String?
            let bytes: [UInt8]
            do {
                let response = try await http.send(request)
                status = response.head.status
                retryAfter = response.head.headers["Retry-After"]
                bytes = try await response.collect(limit: Self.maximumAnswerBytes + 1)
            } catch is CancellationError {
                throw .transport("cancelled")
            } catch {
                throw .transport(String(describing: error))
            }
            if bytes.count > Self.maximumAnswerBytes {
                throw .malformedAnswer("the answer is larger than \(Self.maximumAnswerBytes) bytes")
            }
            if status == 401, !renewed {
                renewed = true
                do {
                    token = try await tokens.refresh()
                } catch {
                    throw .unauthorized(message: String(describing: error))
                }
                continue
            }
            guard (200..<300).contains(status) else {
                throw WorkspaceDesktopError.from(status: status, body: bytes, retryAfter: retryAfter)
            }
            return bytes
        }
    }

    private func currentToken() async throws(WorkspaceDesktopError) -> String? {
        do {
            return try await tokens.token()
        } catch {
            throw .unauthorized(message: String(describing: error))
        }
    }
}
