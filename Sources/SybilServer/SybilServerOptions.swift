import Foundation

/// Everything `sybil serve` can be told, with the defaults a local run wants.
public struct SybilServerOptions: Sendable {
    /// Where history, rooms and uploads are kept.
    public enum Storage: Sendable, Hashable {
        /// Private in-memory databases, gone when the server stops (tests).
        case inMemory
        /// SQLite files in this directory (created when missing).
        case directory(String)
    }

    /// The model name the scripted agent answers to.
    public static let scriptedModel = "sybil-scripted"

    /// The bearer token every route but `/healthz` requires.
    public var token: String
    /// Seeds the scripted agent's choices.
    public var seed: UInt64 = 1
    /// The pause between streamed tokens and between agent steps.
    public var pace: Duration = .milliseconds(40)
    /// With a value, the first request after `idleTimeout` starts a cold start this long.
    public var coldStart: Duration?
    /// How long without requests before the service is cold again.
    public var idleTimeout: Duration = .seconds(300)
    /// During a cold start: wait until it ends (true) or answer 503 with Retry-After (false).
    public var coldStartWaits = false
    /// Chats go to this OpenAI-compatible base URL (`/v1/chat/completions` is appended, e.g.
    /// `https://api.openai.com`).
    public var upstream: URL?
    /// The upstream's API key (from the environment, never the command line).
    public var upstreamKey: String?
    /// The upstream model that answers the Agent room's turns (with ``upstream``); without it
    /// the scripted agent answers the room even when chats are forwarded.
    public var upstreamModel: String?
    /// Whether `/debug/ws-echo` exists (no auth on it).
    public var debugEndpoints = false
    /// Whether the debug RPC `desktop.setOnline` exists (takes desktops offline and back).
    public var debugDesktops = false
    /// Storage.
    public var storage: Storage = .inMemory
    /// When false, attachments are refused with 503 and Agent streams close with 4503.
    public var attachmentsAvailable = true
    /// The attachment storage quota.
    public var quotaBytes: Int64 = 1 << 30
    /// With in-memory storage, the most bytes of uploads held at once, the Agent room's and the
    /// workspace desktop's together (stored, and arriving); beyond it an upload is 507
    /// `storage_full`. On disk uploads are files and only the route limits apply.
    public var memoryUploadBytes: Int64 = 1 << 30
    /// Uploads accepted per minute before 429.
    public var uploadsPerMinute = 30
    /// Messages accepted per minute before 429.
    public var messagesPerMinute = 60
    /// Event-stream heartbeat interval.
    public var heartbeatInterval: Duration = .seconds(15)
    /// WebSocket ping interval.
    public var pingInterval: Duration = .seconds(20)

    /// Options with `token` and the defaults.
    public init(token: String) {
        self.token = token
    }
}
