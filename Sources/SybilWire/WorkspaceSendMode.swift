/// How a message goes to the desktop (`mode` of `run.codexChatSubmit`).
public enum WorkspaceSendMode: Sendable, Hashable {
    /// `send`: a new turn (queued behind a running one).
    case send
    /// `steer`: into the running turn, which the submission names.
    case steer(activeRunId: String)

    /// The wire name: `send` or `steer`.
    public var name: String {
        switch self {
        case .send: "send"
        case .steer: "steer"
        }
    }

    /// The steered run, for a steer.
    public var activeRunId: String? {
        if case .steer(let runId) = self { return runId }
        return nil
    }
}
