/// A part of Sybil a server may offer. Chats are offered by every OpenAI-compatible server;
/// the rest only by a Sybil server (the reference server or one like it).
public enum ServerSurface: String, Sendable, Hashable, CaseIterable {
    /// `POST /v1/chat/completions`: chats, `ask`, Quick Question.
    case chats
    /// The Agent room (`/agent/…`).
    case agentRoom
    /// Workspace chats (`/v1/workspaces/…`).
    case workspaces
    /// Records sync (`/records…`).
    case records
    /// Web searches (`POST /v1/web-search`): `sybil ask --web`.
    case webSearch

    /// The surface's name as the app and the commands show it.
    public var title: String {
        switch self {
        case .chats: "Chats"
        case .agentRoom: "Sybil Agent"
        case .workspaces: "Workspaces"
        case .records: "Records sync"
        case .webSearch: "Web search"
        }
    }

    /// The line the sidebar shows in place of a surface the server does not offer.
    public var notOfferedLine: String { "\(title) — not offered by this server" }

    /// One sentence for a command asked for a surface `server` (a base URL or profile) does
    /// not offer, saying what to do.
    public func notOfferedSentence(server: String) -> String {
        "\(title) is not offered by \(server), a plain OpenAI-compatible server;"
            + " use a Sybil server (`sybil serve`) for it"
    }
}
