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

    /// Whether its work is still under way (preparing, waiting to upload, uploading): a send
    /// waits for it. A failed or interrupted item waits for a person instead and never holds
    /// a send; it is left out of the message and stays in the draft.
    public var isInProgress: Bool {
        switch state {
        case .preparing, .staged, .uploading: true
        case .ready, .failed, .interrupted: false
        }
    }

    /// Whether it waits for a person: failed, or interrupted by a relaunch (retry or remove it).
    public var needsAttention: Bool { !isReady && !isInProgress }

    /// Its state in a few words for a list (`preparing`, `uploading 40%`, `uploaded`,
    /// `failed: …`, `interrupted: retry or remove it`); the failure's sentence as it is.
    public var stateSummary: String {
        switch state {
        case .preparing: "preparing"
        case .staged: "waiting to upload"
        case .uploading(let progress):
            progress.map { "uploading \(Int((min(max($0, 0), 1) * 100).rounded(.down)))%" } ?? "uploading"
        case .ready: "uploaded"
        case .failed(let failure): "failed: \(failure)"
        case .interrupted: "interrupted: retry or remove it"
        }
    }
}
