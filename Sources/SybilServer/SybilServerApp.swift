import Foundation
import SybilCore
import SybilNet
import SybilWire

/// The reference server's request handler: matches routes, checks the bearer token in
/// constant time on every route but `/healthz` (and the opt-in debug echo), and turns every
/// failure into the shared error body. Nothing a client sends makes it throw or crash.
public final class SybilServerApp: HTTPHandler {
    private let options: SybilServerOptions
    private let time: ServerTime
    private let authorization: BearerAuthorization
    private let chats: ChatCompletionsService
    let agentRoom: AgentRoomService
    let desktop: WorkspaceDesktopService
    let records: RecordsService
    let webSearch: WebSearchService
    private let log: ServerLog

    /// Opens storage, builds the surfaces and starts their work (the Agent room's turns);
    /// `upstream` carries forwarded chats (URLSession when `options.upstream` is set and none is
    /// given); `random` draws chat stream ids; `log` receives the causes of 500 answers. A store
    /// that cannot start throws ``ServerError/database(path:reason:remedy:)`` naming its file.
    public convenience init(
        options: SybilServerOptions, time: ServerTime, upstream: (any HTTPClient)? = nil,
        random: any RandomSource = SystemRandomSource(), log: ServerLog = .standardError
    ) throws {
        try self.init(options: options, time: time, upstream: upstream, random: random, starting: true, log: log)
    }

    /// The app; with `starting` false no work starts until ``start()`` (a server that fails to
    /// bind then has nothing to stop).
    init(
        options: SybilServerOptions, time: ServerTime, upstream: (any HTTPClient)?, random: any RandomSource,
        starting: Bool, log: ServerLog = .standardError
    ) throws {
        self.time = time
        self.options = options
        self.log = log
        let storage = options.storage
        authorization = BearerAuthorization(token: options.token)
        // Upstream redirects are never followed: the API key must not travel to another host.
        let forwarding = options.upstream == nil ? nil : (upstream ?? DefaultHTTPClient.make(redirects: .deliver))
        chats = ChatCompletionsService(options: options, time: time, upstream: forwarding, random: random)
        let agentStore = try ServerDatabase.starting(storage, file: AgentRoomStore.file) {
            try AgentRoomStore(storage)
        }
        agentRoom = AgentRoomService(store: agentStore, options: options, time: time, upstream: forwarding)
        let workspaceStore = try ServerDatabase.starting(storage, file: WorkspaceSchema.file) {
            try WorkspaceStore(storage, agent: ScriptedAgent(seed: options.seed), now: time.epochMilliseconds())
        }
        let uploadStore = try ServerDatabase.starting(storage, file: WorkspaceSchema.file) {
            try WorkspaceUploadStore(storage)
        }
        desktop = WorkspaceDesktopService(store: workspaceStore, uploads: uploadStore, options: options, time: time)
        let recordStore = try ServerDatabase.starting(storage, file: ServerRecordStore.file) {
            try ServerRecordStore(storage)
        }
        records = RecordsService(store: recordStore, time: time)
        webSearch = WebSearchService(options: options, upstream: forwarding)
        if starting { start() }
    }

    /// Starts the surfaces' own work (the Agent room's turns); later calls do nothing.
    func start() {
        agentRoom.start()
    }

    /// Body limits: for Agent uploads the largest file (8 MiB), plus 64 KiB for a multipart
    /// body's boundaries and part headers; 2 MiB for desktop calls (1 MiB chunks in base64);
    /// 1 MiB elsewhere. The same under `/api`.
    public func bodyLimit(for head: HTTPRequestHead) -> Int {
        guard case .route(let route, _) = ServerRoute.match(method: head.method, path: head.path) else {
            return 1 << 20
        }
        switch route {
        case .agentUpload:
            return AgentUploadForm.isMultipart(head.headers["Content-Type"])
                ? AgentUploadForm.bodyLimit(AgentRoomService.limits) : Int(AgentRoomService.limits.maxFileBytes)
        case .workspacesRPC: return 2 << 20
        case .recordsBatch: return RecordBatch.maxBodyBytes
        default: return 1 << 20
        }
    }

    /// A multipart Agent upload from an authorized client is parsed as it arrives, so its
    /// limits stop it at once and its bytes are held once; every other body is collected.
    public func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? {
        guard case .route(.agentUpload, _) = ServerRoute.match(method: head.method, path: head.path),
            options.attachmentsAvailable, isAuthorized(head.headers),
            let contentType = head.headers["Content-Type"], AgentUploadForm.isMultipart(contentType)
        else { return nil }
        // A Content-Type without a usable boundary is answered by the handler, after the body.
        return try? AgentUploadForm(contentType: contentType, limits: AgentRoomService.limits)
    }

    /// Stops the work the surfaces own: the Agent room's turns, workspace runs, and chat
    /// streams' producers and forwarders. New work is refused, what runs is cancelled and
    /// awaited until `deadline` passes on the injected clock. Returns the names of the tasks
    /// that had not ended by then (empty when all did). Call after the transport stopped.
    @discardableResult
    public func shutdown(within deadline: Duration = .seconds(5)) async -> [String] {
        async let agent = agentRoom.shutdown(within: deadline)
        async let runs = desktop.shutdown(within: deadline)
        async let streams = chats.shutdown(within: deadline)
        return await agent + runs + streams
    }

    /// Returns once no surface has work in flight: the Agent room's agent waits for a new
    /// turn, no workspace run is in progress or about to start, and no chat stream is being
    /// produced or forwarded. Tests wait on it for "nothing more will happen".
    public func quiescent() async {
        await agentRoom.quiescent()
        await desktop.quiescent()
        await chats.quiescent()
    }

    /// The error body for a request the transport refused.
    public func refusal(status: Int, message: String) -> HTTPServerResponse {
        APIError(status: status, message: message).response
    }

    /// Answers one request.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        switch ServerRoute.match(method: request.method, path: request.path) {
        case .notFound:
            return APIError.notFound("No route \(request.method) \(request.path).").response
        case .methodNotAllowed(let allowed):
            var response = APIError(
                status: 405, message: "\(request.path) takes \(allowed.joined(separator: ", ")), not \(request.method)."
            ).response
            response.headers.set("Allow", allowed.joined(separator: ", "))
            return response
        case .route(let route, let parameters):
            if route == .debugWebSocketEcho && !options.debugEndpoints {
                return APIError.notFound("No route \(request.method) \(request.path).").response
            }
            if route.requiresAuthorization {
                if Self.authorizationCount(request.headers) > 1 {
                    return APIError(
                        status: 400, message: "Send one Authorization header, not several.",
                        code: "duplicate_authorization", param: "Authorization"
                    ).response
                }
                if !isAuthorized(request.headers) {
                    var response = APIError(
                        status: 401, message: "A valid bearer token is required (Authorization: Bearer <token>).",
                        code: "unauthorized"
                    ).response
                    // RFC 9110 §11.6.1: a 401 names the scheme it takes.
                    response.headers.set("WWW-Authenticate", "Bearer")
                    return response
                }
            }
            do {
                return try await dispatch(route, parameters, request)
            } catch let error as APIError {
                var response = error.response
                // RFC 6455 §4.4: a 426 for the WebSocket version names the one spoken.
                if error.status == 426 { response.headers.set("Sec-WebSocket-Version", WebSocketUpgrade.version) }
                return response
            } catch let error as JSONError {
                return APIError.invalid(error.message, param: error.path.description).response
            } catch {
                // The cause (SQL, paths, SQLite's words) is for the operator, never the client.
                log("sybil serve: \(request.method) \(route.template) failed: \(error)")
                return APIError.internalFailure.response
            }
        }
    }

    // MARK: Private

    private func dispatch(_ route: ServerRoute, _ parameters: [String: String], _ request: HTTPServerRequest)
        async throws -> HTTPServerResponse
    {
        switch route {
        case .health: return await chats.health()
        case .chatCompletions: return await chats.complete(request)
        case .chatStreamEvents: return try chats.events(id: parameters["streamId"] ?? "", request)
        case .modelsList: return await chats.listModels()
        case .modelGet: return try await chats.model(id: parameters["modelId"] ?? "")
        case .agentDescriptor: return try await agentRoom.descriptor()
        case .agentMessagesList: return try await agentRoom.messages(request)
        case .agentMessagesSubmit: return try await agentRoom.submit(request)
        case .agentReadGet: return try await agentRoom.read()
        case .agentReadPost: return try await agentRoom.markRead(request)
        case .agentStream: return try agentRoom.stream(request)
        case .agentUpload: return try await agentRoom.upload(request)
        case .agentUploadOriginal: return try await agentRoom.original(uploadId: parameters["uploadId"] ?? "")
        case .workspacesRPC: return try await desktop.call(request)
        case .workspacesEvents: return try await desktop.eventStream(request)
        case .debugWebSocketEcho: return try Self.echo(request)
        case .recordsBatch: return try await records.batch(request)
        case .recordsList: return try await records.list(request)
        case .webSearch: return try await webSearch.search(request)
        }
    }

    /// How many Authorization fields `headers` holds (a second one is a 400, never a guess).
    private static func authorizationCount(_ headers: HTTPHeaders) -> Int {
        headers.fields.reduce(0) { $0 + ($1.name.lowercased() == "authorization" ? 1 : 0) }
    }

    /// Whether the request carries the token, by the one bearer rule (``BearerAuthorization``).
    private func isAuthorized(_ headers: HTTPHeaders) -> Bool {
        authorization.refusal(for: headers) == nil
    }

    private static func echo(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let accept = try WebSocketUpgrade.accept(request)
        return HTTPServerResponse(
            status: 101,
            body: .webSocket(accept: accept, maximumMessage: 16 << 20) { socket in
                for await message in socket.incoming {
                    switch message {
                    case .text(let text): socket.send(text: text)
                    case .binary(let bytes): socket.send(binary: bytes)
                    case .closed: return
                    }
                }
            })
    }
}
