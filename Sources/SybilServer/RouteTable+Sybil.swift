import SybilHTTP
import SybilWire

extension RouteTable {
    /// Every route of the reference server, each declared once: docs/api/openapi.yaml
    /// describes each REST route (a test walks this table), the auth middleware and the body
    /// limits read it from the head, and ``RoutingHandler`` dispatches by it. Body limits:
    /// 1 MiB unless declared; Agent uploads the largest file (8 MiB) plus 64 KiB for a
    /// multipart body's boundaries and part headers; desktop calls 2 MiB (1 MiB chunks in
    /// base64).
    static let sybil = RouteTable([
        Route(
            .health, "GET", "/healthz", access: .open, immediate: { surfaces, _, _ in surfaces.chats.immediateHealth() }
        ) { surfaces, request, _ in await surfaces.chats.health(request.inputEnd) },
        Route(.chatCompletions, "POST", "/v1/chat/completions") { surfaces, request, _ in
            await surfaces.chats.complete(request)
        },
        Route(.chatStreamEvents, "GET", "/v1/chat/completions/{streamId}/events") { surfaces, request, parameters in
            try surfaces.chats.events(id: parameters.value(ChatStreamID.self), request)
        },
        Route(.modelsList, "GET", "/v1/models") { surfaces, _, _ in await surfaces.chats.listModels() },
        Route(.modelGet, "GET", "/v1/models/{modelId}") { surfaces, _, parameters in
            try await surfaces.chats.model(id: parameters.value(ModelID.self))
        },
        Route(.agentDescriptor, "GET", "/agent/descriptor") { surfaces, _, _ in
            try await surfaces.agentRoom.descriptor()
        },
        Route(.agentMessagesList, "GET", "/agent/messages") { surfaces, request, _ in
            try await surfaces.agentRoom.messages(request)
        },
        Route(.agentMessagesSubmit, "POST", "/agent/messages") { surfaces, request, _ in
            try await surfaces.agentRoom.submit(request)
        },
        Route(
            .agentReadGet, "GET", "/agent/read", immediate: { surfaces, _, _ in surfaces.agentRoom.readAtOnce() }
        ) { surfaces, _, _ in try await surfaces.agentRoom.read() },
        Route(.agentReadPost, "POST", "/agent/read") { surfaces, request, _ in
            try await surfaces.agentRoom.markRead(request)
        },
        Route(.agentStream, "GET", "/agent/stream", kind: .webSocket) { surfaces, request, _ in
            try surfaces.agentRoom.stream(request)
        },
        Route(
            .agentUpload, "POST", "/agent/uploads", bodyLimit: .byHead(agentUploadLimit),
            bodyConsumer: agentUploadConsumer
        ) { surfaces, request, _ in
            try await surfaces.agentRoom.upload(request)
        },
        Route(.agentUploadOriginal, "GET", "/agent/uploads/{uploadId}/original") { surfaces, _, parameters in
            try await surfaces.agentRoom.original(uploadId: parameters.value(UploadID.self))
        },
        Route(.workspacesRPC, "POST", "/v1/workspaces/rpc", bodyLimit: .bytes(2 << 20)) { surfaces, request, _ in
            try await surfaces.desktop.call(request)
        },
        Route(.workspacesEvents, "GET", "/v1/workspaces/events") { surfaces, request, _ in
            try await surfaces.desktop.eventStream(request)
        },
        Route(.debugWebSocketEcho, "GET", "/debug/ws-echo", access: .open, kind: .webSocket, underBasePath: false) {
            _, request, _ in try echo(request)
        },
        Route(.recordsBatch, "POST", "/records/batch", bodyLimit: .bytes(RecordBatch.maxBodyBytes)) {
            surfaces, request, _ in try await surfaces.records.batch(request)
        },
        Route(.recordsList, "GET", "/records") { surfaces, request, _ in try await surfaces.records.list(request) },
        Route(.webSearch, "POST", "/v1/web-search") { surfaces, request, _ in
            try await surfaces.webSearch.search(request)
        },
    ])

    /// A multipart upload may carry the largest file plus its framing; a raw one the file.
    private static func agentUploadLimit(_ head: HTTPRequestHead) -> Int {
        AgentUploadForm.isMultipart(head.headers["Content-Type"])
            ? AgentUploadForm.bodyLimit(AgentRoomService.limits) : Int(AgentRoomService.limits.maxFileBytes)
    }

    /// An Agent upload is taken as it arrives: a multipart body is parsed, so its limits stop
    /// it at once, and the file of either form goes to a temporary file in the room's uploads
    /// folder (in memory for `--in-memory`), never held whole (the auth middleware offers no
    /// consumer to a refused request). A multipart Content-Type without a usable boundary is
    /// answered by the handler, after the body.
    private static func agentUploadConsumer(_ surfaces: ServerSurfaces, _ head: HTTPRequestHead)
        -> (any HTTPRequestBodyConsumer)?
    {
        guard surfaces.options.attachmentsAvailable else { return nil }
        let contentType = head.headers["Content-Type"]
        guard AgentUploadForm.isMultipart(contentType) else {
            return AgentRawUploadBody(spool: surfaces.agentRoom.store.spool(param: "body"))
        }
        return try? AgentUploadForm(
            contentType: contentType ?? "", limits: AgentRoomService.limits,
            spool: surfaces.agentRoom.store.spool(param: "file"))
    }

    /// The opt-in debug echo: every message sent back as it came.
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
