/// The desktop's answer to a submission.
public enum WorkspaceSubmitReceipt: Sendable, Hashable {
    /// The desktop owns delivery now; `runId` is the run the message went to, when known.
    case accepted(runId: String?)
    /// A final rejection, with the desktop's reason.
    case rejected(reason: String)
}

/// `run.codexChatSubmit`: the seam the outbox sends through. The desktop runs each call key
/// (``WorkspaceOutboxEntry/callKey``) at most once and answers a repeat with the first receipt.
public protocol WorkspaceSubmitRPC: Sendable {
    /// Submits the entry's pending mutation.
    func codexChatSubmit(_ entry: WorkspaceOutboxEntry) async throws -> WorkspaceSubmitReceipt
}
