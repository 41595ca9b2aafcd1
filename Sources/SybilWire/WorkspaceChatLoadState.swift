import SybilCore

/// Whether the desktop could read a chat's history, as `loadState` in the load envelope.
///
/// Wire form: `{"state":"ready"}`, `{"state":"loading"}` or
/// `{"state":"unavailable","reason":"…"}` with a non-blank reason.
public enum WorkspaceChatLoadState: Sendable, Hashable {
    /// History was read; the timeline is the current window.
    case ready
    /// The desktop is still indexing the session; ask again later.
    case loading
    /// History cannot be read now (the reason says why); keep what is on screen.
    case unavailable(reason: String)

    /// Whether the timeline in the envelope is confirmed history.
    public var isHistoryAvailable: Bool {
        if case .ready = self { return true }
        return false
    }

    /// Decodes and validates a load state.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WorkspaceChatLoadState {
        let reader = try JSONObjectReader(value, at: path)
        let state = try reader.string("state")
        switch state {
        case "ready":
            try reader.requireExactKeys(["state"])
            return .ready
        case "loading":
            try reader.requireExactKeys(["state"])
            return .loading
        case "unavailable":
            try reader.requireExactKeys(["state", "reason"])
            return .unavailable(reason: try reader.nonBlankString("reason"))
        default:
            throw .contract(
                path.appending(key: "state"),
                "\(JSONWriter.quoted(state)) is not one of \"ready\", \"loading\", \"unavailable\"")
        }
    }

    /// The load state as contract JSON.
    public var jsonValue: JSONValue {
        switch self {
        case .ready: ["state": "ready"]
        case .loading: ["state": "loading"]
        case .unavailable(let reason): ["state": "unavailable", "reason": .string(reason)]
        }
    }
}
