/// What the reference server's routes answer with: its options and one object per surface.
/// Route handlers (``Route/Handler``) receive it; the app owns it.
struct ServerSurfaces: Sendable {
    /// The options the server runs with.
    let options: SybilServerOptions
    /// Health, models and chat completions.
    let chats: ChatCompletionsService
    /// The Agent room.
    let agentRoom: AgentRoomService
    /// The workspace desktop RPC and events.
    let desktop: WorkspaceDesktopService
    /// Local-first records.
    let records: RecordsService
    /// Web searches.
    let webSearch: WebSearchService
}
