import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet

/// The Agent room part of the driver: the real outbox on disk, its sender and the room whose
/// merged messages confirm entries, wired as the app wires them, except that confirmed entries
/// stay in the outbox: the outbox is then the driver's own ledger of what it queued, which a
/// kill at any point cannot make disagree with its progress.
@MainActor
final class AgentSurfaceDriver {
    let outbox: AgentOutbox
    private let room: AgentRoomModel
    private let sender: AgentOutboxSender
    private let plan: DeliveryPlan
    /// When Resend all may go next: not before a failure's Retry-After (a person reads "retry
    /// in 1 seconds" and waits), nor more than twice a second.
    private var nextResend = ContinuousClock.now

    /// Opens the outbox in `directory` (a launch: `sending` entries fail with Retry).
    init(connection: ChaosConnection, directory: String, plan: DeliveryPlan) async throws {
        self.plan = plan
        let base = try AgentAPIBase(connection.baseURL)
        let ids = RandomUUIDGenerator(source: SystemRandomSource())
        let now = WallClock.milliseconds
        outbox = try await AgentOutbox.open(directory: directory, baseURL: connection.baseURL, ids: ids, now: now)
        if let problem = outbox.loadProblems.first { throw ChaosError("the Agent outbox lost data: \(problem)") }
        let api = try connection.agentAPI()
        room = AgentRoomModel(
            base: base, tokens: connection.tokens, http: DefaultHTTPClient.make(redirects: .deliver),
            clock: ContinuousClock(), random: SystemRandomSource(), timeZone: .current,
            policy: ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1)))
        sender = AgentOutboxSender(outbox: outbox, api: api, removesConfirmed: false)
    }

    /// The plan's indices the outbox holds, in its order.
    var queuedIndices: [Int] { outbox.entries.compactMap { plan.index(of: $0.text) } }

    /// Starts the sender and the room (which replays history and confirms echoes), then sends
    /// again what a kill or an outage failed.
    func start() async {
        room.onMessageMerged = { [weak self] message in self?.sender.messageMerged(message) }
        // As the app wires them: a server that lost its history never confirms by old cursors.
        room.onHistoryReset = { [weak self] messages in self?.sender.historyReset(to: messages) }
        sender.start()
        await room.start()
        await pump()
    }

    /// Queues message `index` (saved before this returns; the sender takes it from there).
    func queue(_ index: Int) async throws {
        _ = try await outbox.enqueue(text: plan.text(of: index))
    }

    /// Retry on every failed message that Retry can help (a person presses Resend all).
    func pump() async {
        let clock = ContinuousClock()
        if let failed = outbox.entries.first(where: \.canRetry), clock.now >= nextResend {
            let wait = Duration.seconds(failed.failure?.retryAfterSeconds ?? 0)
            nextResend = clock.now.advanced(by: max(wait, .milliseconds(500)))
            _ = try? await outbox.resendAll()
        }
        // A room that lost its stream reconnects by itself; one that never started is asked again.
        if room.connection == .idle { await room.start() }
    }

    /// Whether every queued message is confirmed by its echo.
    var isSettled: Bool { outbox.entries.allSatisfy { $0.state == .confirmed } }

    /// What is not confirmed yet, for the log.
    var unsettledSummary: String {
        let open = outbox.entries.filter { $0.state != .confirmed }
        return "agent: \(open.count) unconfirmed (\(Set(open.map(\.state.rawValue)).sorted().joined(separator: ",")))"
    }

    /// Stops the room and the sender and waits for them.
    func stop() async {
        room.onMessageMerged = nil
        room.onHistoryReset = nil
        await room.stop()
        await sender.stop()
    }
}
