import SybilWire

/// `run.codexChatSubmit`: the seam the outbox sends through. The desktop runs each call key
/// (``WorkspaceOutboxEntry/callKey``) at most once and answers a repeat with the first receipt.
public protocol WorkspaceSubmitRPC: Sendable {
    /// Submits the entry's pending mutation; the receipt names the operation and mutation.
    func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt
}
