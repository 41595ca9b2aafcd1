import SybilClient
import SybilWire

/// Whether the Agent room's draft takes a file now (`/attach`), and when it does not, why: each
/// case has its own sentence that says what to do, so a room still loading never reads as one
/// that takes no files, nor a full draft as a closed room. Pure.
public enum AgentDraftAvailability: Sendable, Hashable {
    /// Files can be attached.
    case open
    /// The room's descriptor has not arrived yet (or the draft has not taken it in yet).
    case loading
    /// The room offers no attachments.
    case textOnly
    /// The server cannot take files now (it said so; a reconnect checks again).
    case unavailable
    /// A message is being handed to the outbox; the draft does not change meanwhile.
    case handingOff
    /// The draft holds `limit` files, the most one message takes.
    case full(limit: Int)

    /// The availability from the room's and the draft's state: `isLoaded` once the room's
    /// descriptor is there and the draft follows it; `limits` the draft's (v1, clamped), `nil`
    /// while text-only; `count` the items in the draft.
    public init(isLoaded: Bool, limits: AgentAttachmentLimits?, isAvailable: Bool, isHandingOff: Bool, count: Int) {
        if !isLoaded {
            self = .loading
        } else if let limits {
            if !isAvailable {
                self = .unavailable
            } else if isHandingOff {
                self = .handingOff
            } else if count >= limits.maxFiles {
                self = .full(limit: limits.maxFiles)
            } else {
                self = .open
            }
        } else {
            self = .textOnly
        }
    }

    /// The availability of `draft` in `room` now.
    @MainActor
    public init(room: AgentRoomModel, draft: AgentAttachmentDraft) {
        let descriptor = room.descriptor
        self.init(
            isLoaded: descriptor != nil && draft.capability == descriptor?.attachments, limits: draft.limits,
            isAvailable: draft.attachmentsAvailable, isHandingOff: draft.isHandingOff, count: draft.items.count)
    }

    /// Why `/attach` attached nothing, as a sentence that says what to do (`nil` while open).
    public var refusal: String? {
        switch self {
        case .open:
            nil
        case .loading:
            "The room is still loading, so it cannot take files yet; nothing was sent. Try /attach again in a moment."
        case .textOnly:
            "This room takes no attachments; nothing was sent."
        case .unavailable:
            "The server cannot take files right now (the room checks again when it reconnects); nothing was sent."
        case .handingOff:
            "The last message is still being handed over; nothing was sent. Try /attach again in a moment."
        case .full(let limit):
            "The draft already holds \(limit) attachments, the most a message takes; nothing was sent. "
                + "/detach N removes one (/attachments lists them)."
        }
    }
}
