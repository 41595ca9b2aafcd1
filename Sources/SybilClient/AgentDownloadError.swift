import SybilWire

/// Why an original, preview or export is not available.
public enum AgentDownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The download failed: the server's answer, a refused redirect, or bytes that are not the
    /// original (size or SHA-256).
    case failed(AgentRoomError)
    /// The configuration (base URL or account) changed while it ran; the result was discarded.
    case configurationChanged
    /// It was cancelled before it finished.
    case cancelled
    /// The export could not be written.
    case storage(String)

    /// One sentence for a person.
    public var description: String {
        switch self {
        case .failed(let error): "The attachment could not be downloaded: \(error.description)"
        case .configurationChanged: "The server settings changed; open the attachment again."
        case .cancelled: "The download was cancelled."
        case .storage(let reason):
            "The attachment could not be saved for sharing (\(reason)); free some space and try again."
        }
    }
}
