import SybilWire

/// Why a draft item stopped: refused on this device, refused or lost by the server (its code,
/// message, quota and Retry-After kept), or a storage failure. Failed work waits for an
/// explicit retry.
public enum AgentAttachmentFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Refused by the limits or validation before anything was uploaded.
    case rejected(AgentAttachmentRejection)
    /// The upload failed; the server's answer is kept whole.
    case upload(AgentRoomError)
    /// The prepared bytes could not be staged or the draft could not be saved.
    case storage(String)
    /// It failed before Sybil last closed, for this reason (read back from the saved draft).
    case earlier(String)

    /// The server's code (e.g. `quota_exceeded`), when it answered with one.
    public var code: String? {
        if case .upload(let error) = self { error.code } else { nil }
    }

    /// The HTTP status, when the server answered.
    public var status: Int? {
        if case .upload(let error) = self { error.status } else { nil }
    }

    /// Seconds the server asked to wait (`Retry-After` or `details.retryAfterSeconds`).
    public var retryAfterSeconds: Int? {
        if case .upload(let error) = self { error.retryAfterSeconds } else { nil }
    }

    /// The quota snapshot of a `507`.
    public var quota: AgentQuota? {
        if case .upload(let error) = self { error.quota } else { nil }
    }

    /// The limit a `413` names.
    public var limitBytes: Int64? {
        if case .upload(let error) = self { error.limitBytes } else { nil }
    }

    /// One sentence for a person: what happened and what to do.
    public var description: String {
        switch self {
        case .rejected(let rejection): rejection.description
        case .upload(let error): "The upload failed: \(error.description) Retry or remove it."
        case .storage(let reason):
            "The attachment could not be saved on this device (\(reason)); free some space and retry."
        case .earlier(let reason): "\(reason) (before Sybil last closed)"
        }
    }
}
