import SybilWire

/// One attachment of the Agent room draft, in selection order: its upload id (a UUID, the
/// same on every retry), what the card shows, and where it is.
public struct AgentAttachmentItem: Sendable, Hashable, Identifiable {
    /// Where an item is.
    public enum State: Sendable, Hashable {
        /// Selected, waiting for or in preparation (reading, validating, converting, staging).
        case preparing
        /// Prepared and staged on this device, waiting for its turn to upload.
        case staged
        /// Uploading; `progress` is 0…1, or `nil` when the transport does not report it.
        case uploading(progress: Double?)
        /// Uploaded: the server's descriptor.
        case ready(AgentAttachment)
        /// Stopped; ``AgentAttachmentDraft/retry(_:)`` starts it again.
        case failed(AgentAttachmentFailure)
        /// Staged before the app last quit but not uploaded: waits for an explicit retry.
        case interrupted
    }

    /// The upload id.
    public var id: String
    /// How it was picked.
    public var kind: AgentAttachmentSource.Kind
    /// The name on the card (the converted name once a photo is prepared).
    public var fileName: String
    /// The MIME type (known for certain once prepared).
    public var mimeType: String
    /// The size in bytes, once known.
    public var size: Int64?
    /// Where it is.
    public var state: State

    /// Creates an item.
    public init(
        id: String, kind: AgentAttachmentSource.Kind, fileName: String, mimeType: String, size: Int64?,
        state: State
    ) {
        self.id = id
        self.kind = kind
        self.fileName = fileName
        self.mimeType = mimeType
        self.size = size
        self.state = state
    }

    /// The descriptor, once ready.
    public var attachment: AgentAttachment? {
        if case .ready(let attachment) = state { attachment } else { nil }
    }

    /// Whether it is ready to send.
    public var isReady: Bool { attachment != nil }

    /// Whether it failed.
    public var failure: AgentAttachmentFailure? {
        if case .failed(let failure) = state { failure } else { nil }
    }
}
