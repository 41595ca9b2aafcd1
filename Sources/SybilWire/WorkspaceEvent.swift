import SybilCore

/// One event of `GET /v1/workspaces/events` (docs/api/workspaces.md), by its SSE `event`
/// name; `data` is the JSON below. Ids are opaque strings a client echoes as `Last-Event-ID`.
public enum WorkspaceEvent: Sendable, Hashable {
    /// `overlay`: the chat's new live overlay.
    case overlay(LiveOverlay)
    /// `overlay.delta`: the overlay's change from the revision before, without the rows that
    /// did not change; it applies only to its base (``LiveOverlayDelta/applied(to:)``).
    case overlayDelta(LiveOverlayDelta)
    /// `run`: `{runId, state}`, a run changed state.
    case run(runId: String, state: WorkspaceRunState)
    /// `session`: `{sessionId, updatedAt}`, the session's history moved.
    case session(sessionId: String, updatedAt: Int64)
    /// `desktop`: `{desktopId, online}`, the desktop went offline or came back.
    case desktop(desktopId: String, online: Bool)
    /// `reset`: `{reason}`, events were missed (the id asked for is gone): every host is stale.
    case reset(reason: String)

    /// The SSE event name.
    public var name: String {
        switch self {
        case .overlay: "overlay"
        case .overlayDelta: "overlay.delta"
        case .run: "run"
        case .session: "session"
        case .desktop: "desktop"
        case .reset: "reset"
        }
    }

    /// The event's data as contract JSON.
    public var dataJSON: JSONValue {
        switch self {
        case .overlay(let overlay): overlay.jsonValue
        case .overlayDelta(let delta): delta.jsonValue
        case .run(let runId, let state): ["runId": .string(runId), "state": .string(state.rawValue)]
        case .session(let sessionId, let updatedAt):
            ["sessionId": .string(sessionId), "updatedAt": .number(JSONNumber(updatedAt))]
        case .desktop(let desktopId, let online): ["desktopId": .string(desktopId), "online": .bool(online)]
        case .reset(let reason): ["reason": .string(reason)]
        }
    }

    /// The event's data as text, for an SSE `data:` field.
    public var dataText: String { JSONWriter().string(from: dataJSON) }

    /// Decodes an event from its SSE name and data bytes; an unknown name or data outside the
    /// contract fails with the path (`data.state`, …).
    public static func decode(name: String, data bytes: [UInt8]) throws(JSONError) -> WorkspaceEvent {
        let path = JSONPath.root.appending(key: "data")
        let value = try JSONReader().parse(bytes)
        switch name {
        case "overlay":
            return .overlay(try LiveOverlay.decode(value, at: path))
        case "overlay.delta":
            return .overlayDelta(try LiveOverlayDelta.decode(value, at: path))
        case "run":
            let reader = try JSONObjectReader(value, at: path)
            try reader.requireExactKeys(["runId", "state"])
            return .run(
                runId: try reader.nonEmptyString("runId"), state: try reader.decode("state", WorkspaceRunState.decode))
        case "session":
            let reader = try JSONObjectReader(value, at: path)
            try reader.requireExactKeys(["sessionId", "updatedAt"])
            return .session(
                sessionId: try reader.nonEmptyString("sessionId"),
                updatedAt: try reader.integer("updatedAt", in: 0...JSONValueReader.maxSafeInteger))
        case "desktop":
            let reader = try JSONObjectReader(value, at: path)
            try reader.requireExactKeys(["desktopId", "online"])
            return .desktop(desktopId: try reader.nonEmptyString("desktopId"), online: try reader.bool("online"))
        case "reset":
            let reader = try JSONObjectReader(value, at: path)
            try reader.requireExactKeys(["reason"])
            return .reset(reason: try reader.string("reason"))
        default:
            throw .contract(JSONPath.root.appending(key: "event"), "unknown workspace event \(JSONWriter.quoted(name))")
        }
    }
}
