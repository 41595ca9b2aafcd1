import SybilWire

/// Each chat's live state, in memory only: the overlay (epoch, revision, blocks), the running
/// run and the runs queued behind it. A pure value: its owner (``WorkspaceStore``) changes it
/// in the same actor turn as the history it settles into, so a load never sees a row both in
/// history and in the overlay.
struct WorkspaceLiveState {
    /// A chat's live state: the overlay and the run, if one is active.
    struct Live: Sendable, Hashable {
        /// The overlay's settlement epoch (see ``WorkspaceLiveState/fresh(_:)`` for a start's first).
        var epoch: Int64 = 1
        var revision: Int64 = 0
        var blocks: [TimelineBlock] = []
        var runId: String?
        var runStartedAt: Int64?
        /// Runs accepted while another was running, oldest first; each starts when the one
        /// before it ends.
        var queue: [QueuedRun] = []

        var overlay: LiveOverlay {
            LiveOverlay(settlementEpoch: epoch, revision: revision, blocks: blocks)
        }
    }

    /// A run waiting for the chat's running run to end.
    struct QueuedRun: Sendable, Hashable {
        var runId: String
        var prompt: String
    }

    private var chats: [WorkspaceChatKey: Live] = [:]
    /// The newest epoch each chat's history settled under, across starts.
    private var settledEpochs: [WorkspaceChatKey: Int64]

    /// No chat live yet; `settledEpochs` are the epochs history settled under at earlier starts.
    init(settledEpochs: [WorkspaceChatKey: Int64]) {
        self.settledEpochs = settledEpochs
    }

    /// A chat's live state before anything happened in it since this start: the epoch after
    /// the last one its history settled under, so clients (which keep the newest epoch they
    /// saw) take this start's overlays.
    func fresh(_ chat: WorkspaceChatKey) -> Live {
        Live(epoch: (settledEpochs[chat] ?? 0) + 1)
    }

    /// The chat's live state.
    func state(of chat: WorkspaceChatKey) -> Live {
        chats[chat] ?? fresh(chat)
    }

    /// Replaces the chat's live state with `state`.
    mutating func set(_ state: Live, of chat: WorkspaceChatKey) {
        chats[chat] = state
    }

    /// Changes the chat's live state with `change`, bumping the revision; returns the result.
    mutating func update(_ chat: WorkspaceChatKey, _ change: (inout Live) -> Void) -> Live {
        var state = state(of: chat)
        change(&state)
        state.revision += 1
        chats[chat] = state
        return state
    }

    /// Notes that the chat's history settled under `epoch` (its owner stored it).
    mutating func settled(_ epoch: Int64, of chat: WorkspaceChatKey) {
        settledEpochs[chat] = max(settledEpochs[chat] ?? 0, epoch)
    }

    /// Removes run `runId` (its blocks, its queue entry, or the running run) and starts the
    /// next epoch with the other runs' blocks; returns the result.
    mutating func drop(run runId: String, of chat: WorkspaceChatKey) -> Live {
        let old = state(of: chat)
        let rest = old.blocks.filter { $0.runId != runId }
        let running = old.runId == runId ? nil : old.runId
        let state = Live(
            epoch: old.epoch + 1, revision: rest.isEmpty ? 0 : 1, blocks: rest, runId: running,
            runStartedAt: running == nil ? nil : old.runStartedAt, queue: old.queue.filter { $0.runId != runId })
        chats[chat] = state
        return state
    }
}
