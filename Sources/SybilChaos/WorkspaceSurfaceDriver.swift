import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTimeline
import SybilWire

/// The workspace part of the driver: the real outbox copy in a key-value store on disk, its
/// sender (serial chain, receipts) and a host whose loads confirm operations, joined by the
/// composer as the app joins them. New messages are saved in the outbox and counted in the
/// driver's progress before the host learns of them: only the host confirms (and so only then
/// can an entry complete and leave at the next launch), so a kill never leaves a message that
/// neither the outbox nor the progress remembers.
@MainActor
final class WorkspaceSurfaceDriver {
    let chat: WorkspaceChatKey
    let outbox: WorkspaceOutbox
    private let host: WorkspaceChatHost
    private let sender: WorkspaceOutboxSender
    private let composer: WorkspaceChatComposer
    private let plan: DeliveryPlan
    private let ids = RandomUUIDGenerator(source: SystemRandomSource())
    private let now = WallClock.milliseconds
    private var lastRetry = ContinuousClock.now
    /// When each accepted, unconfirmed operation was first seen so this life.
    private var acceptedSince: [String: ContinuousClock.Instant] = [:]
    /// How long an accepted operation may wait for a load to confirm it before it counts as
    /// stuck (reloads run every 100 ms meanwhile).
    static let confirmationWait: Duration = .seconds(5)

    /// Opens the outbox in `directory` (a launch: completed operations leave, a new generation
    /// begins) for `chat`.
    init(connection: ChaosConnection, chat: WorkspaceChatKey, directory: String, plan: DeliveryPlan) throws {
        self.chat = chat
        self.plan = plan
        outbox = try WorkspaceOutbox(store: try FileKeyValueStore(directory: directory))
        let desktop = connection.desktop()
        host = WorkspaceChatHost(key: chat, rpc: desktop, clock: ContinuousClock(), random: SystemRandomSource())
        sender = WorkspaceOutboxSender(outbox: outbox, rpc: desktop, clock: ContinuousClock(), ids: ids, now: now)
        composer = WorkspaceChatComposer(host: host, outbox: outbox, sender: sender, ids: ids, now: now)
    }

    /// Problems the outbox had reading what was stored.
    var loadProblems: [String] { get async { await outbox.loadProblems } }

    /// The plan's indices still pending in the outbox, in order.
    var queuedIndices: [Int] {
        get async { await outbox.pendingEntries(in: chat).compactMap { plan.index(of: $0.mutation.text) } }
    }

    /// Activates the host and restores what an earlier life left: pending rows shown, the
    /// unaccepted sent again in order with their ids.
    func start() async {
        host.activate()
        await composer.restore()
    }

    /// Queues message `index`: saved in the outbox, then `remember` (the driver's progress),
    /// then shown and sent after the chat's earlier messages.
    func queue(_ index: Int, remember: () throws -> Void) async throws {
        let entry = WorkspaceOutboxEntry(
            chat: chat, operationId: ids.makeID(),
            mutation: .init(mutationId: ids.makeID(), text: plan.text(of: index)), mode: .send, createdAt: now())
        try await outbox.enqueue(entry)
        try remember()
        host.addPendingMessage(entry.pendingMessage)
        _ = try await sender.send(queued: entry)
        // The live feed would tell the app that the overlay changed; the driver reloads.
        host.handle(.explicitRefresh)
    }

    /// Sends again what was not accepted (at most every 500 ms) and reloads the window so that
    /// accepted operations the desktop now carries complete.
    func pump() async {
        let pending = await outbox.pendingEntries(in: chat)
        guard !pending.isEmpty else { return }
        if pending.contains(where: { !$0.acceptedByDesktop }), ContinuousClock.now - lastRetry > .milliseconds(500) {
            lastRetry = ContinuousClock.now
            await composer.retryUnaccepted()
        }
        host.handle(.explicitRefresh)
    }

    /// Whether the outbox has nothing left to send: everything pending was accepted by the
    /// desktop (which owns delivery from then on) and waited ``confirmationWait`` for a load to
    /// confirm it. Accepted entries no load confirms are the check's to report.
    var isSettled: Bool {
        get async {
            let pending = await outbox.pendingEntries(in: chat)
            let now = ContinuousClock.now
            for entry in pending where entry.acceptedByDesktop && acceptedSince[entry.operationId] == nil {
                acceptedSince[entry.operationId] = now
            }
            return pending.allSatisfy { entry in
                entry.acceptedByDesktop && acceptedSince[entry.operationId].map { now - $0 >= Self.confirmationWait }!
            }
        }
    }

    /// What is pending, for the log.
    var unsettledSummary: String {
        get async {
            let pending = await outbox.pendingEntries(in: chat)
            let accepted = pending.filter(\.acceptedByDesktop).count
            return "workspace: \(pending.count) pending (\(accepted) accepted)"
                + (host.lastLoadError.map { ", last load: \($0)" } ?? "")
        }
    }

    /// Parks the host and lets confirmations being saved finish.
    func stop() async {
        host.park()
        await composer.close()
    }
}
