/// What a server offers, as ``CapabilityDiscovery`` learned it: a Sybil server offers chats,
/// the Agent room, workspaces and records and answers `GET /healthz`; a plain
/// OpenAI-compatible server offers chats only and is woken with `GET /v1/models`.
public struct ServerCapabilities: Sendable, Hashable {
    /// The kinds of server told apart.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The reference server or one like it: it answers its Agent room descriptor.
        case sybil
        /// Any other OpenAI-compatible server (OpenAI, Ollama, llama.cpp, vLLM, LiteLLM).
        case openAICompatible = "openai-compatible"
    }

    /// The kind.
    public var kind: Kind

    /// Capabilities of a `kind` server.
    public init(kind: Kind) {
        self.kind = kind
    }

    /// A Sybil server; the embedded server is one without probing.
    public static let sybil = ServerCapabilities(kind: .sybil)
    /// A plain OpenAI-compatible server.
    public static let openAICompatible = ServerCapabilities(kind: .openAICompatible)

    /// Whether `surface` is offered.
    public func offers(_ surface: ServerSurface) -> Bool {
        surface == .chats || kind == .sybil
    }

    /// Whether the server answers `GET /healthz` (else warm-up asks `GET /v1/models`).
    public var hasHealthCheck: Bool { kind == .sybil }
}
